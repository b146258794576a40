import { createLogger } from '../logging/logger';
import { FakeTemporal, InMemoryExecutions } from './fake-temporal.fixture';
import { LocalReplies } from './local-replies';
import type { RunRequest } from './run-request';
import { RunStarter } from './run-starter';

export const ORG = 'org-1';

/** A run request for a one-step workflow; `fields` override. */
export const runRequest = (fields: Partial<RunRequest> = {}): RunRequest => ({
  organizationId: ORG,
  workflow: { id: 'wf-1', name: 'orders', version: 3, steps: [{ stepId: 'greet', stepType: 'core.set', input: { values: { x: 1 } } }] },
  environmentId: null,
  initial: { name: 'Ada' },
  mode: 'api',
  ...fields,
});

/** A RunStarter on a fake Temporal and in-memory executions; `local`: with a worker in this process. */
export function starterOnFakes(options: { local?: boolean } = {}) {
  const temporal = new FakeTemporal();
  const executions = new InMemoryExecutions();
  const runs = new RunStarter(temporal, executions, 'runs-queue', createLogger('silent'));
  const replies = new LocalReplies();
  if (options.local) runs.attachWorker({ client: temporal, replies });
  return { temporal, executions, runs, replies };
}
