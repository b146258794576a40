export default async function globalTeardown(): Promise<void> {
  const stops = (globalThis as { __flowbaseStops?: Array<() => Promise<void>> }).__flowbaseStops ?? [];
  for (const stop of stops.reverse()) await stop();
}
