import { ExecutionSchema, StartedSchema } from './executions.schemas';
import { presentExecution } from './executions.presenter';
import type { ExecutionRow, ReadStep } from './executions.repository';
import type { ApiRun, ExecutionsService, ReadExecution } from './executions.service';

/** How routes that start a run answer (a run, a test run, a test of a draft or of one of its steps), and what they document. */
export function runAnswers(service: Pick<ExecutionsService, 'temporalLink'>) {
  const started = { 202: { description: 'Started; the run goes on', schema: StartedSchema } };
  const finished = { 200: { description: 'The run ended: the execution with its steps', schema: ExecutionSchema }, ...started };

  /** An execution with its steps (when read) and where its run is in Temporal. */
  const present = ({
    execution,
    steps,
    runId,
    waits,
    subStepsOmitted,
    replay,
    usage,
  }: Partial<ReadExecution> & { execution: ExecutionRow; steps?: ReadStep[] }) =>
    presentExecution(execution, service.temporalLink(execution.id, runId), steps, { waits, subStepsOmitted, replay, usage });

  /** The ended execution, or 202 while it still runs (not waited for, or past the wait) or waits at a core.wait step. */
  const presentRun = ({ executionId, read, waiting }: ApiRun) =>
    read ? { status: 200, body: present(read) } : { status: 202, body: { executionId, status: waiting ? 'waiting' : 'running' } };

  return { started, finished, present, presentRun };
}
