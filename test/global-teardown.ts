import { suiteStops } from './suite-services';

/** Stops what the global setups started, last started first; a second tier's teardown finds nothing left. */
export default async function globalTeardown(): Promise<void> {
  const stops = suiteStops();
  while (stops.length > 0) await stops.pop()!();
}
