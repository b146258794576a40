import { ensureTemporal, ensureWorkflowBundle } from './suite-services';

/**
 * The workflow tier's services (workflows/*.test.ts): a Temporal dev server and
 * the workflow bundle, once per jest run, shared with the integration tier when
 * both run. workflows/workflow-env.fixture.ts reads them from the environment.
 */
export default async function globalSetup(): Promise<void> {
  const [temporal, bundle] = await Promise.all([ensureTemporal(), ensureWorkflowBundle()]);
  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.TEMPORAL_WORKFLOW_BUNDLE = bundle;
}
