// The workflow tier's Temporal: the real workflow bundle on the run's dev server, activities mocked.
import fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker, type InjectedSinks, type WorkflowBundle } from '@temporalio/worker';
import type { Activities } from '../activities';
import type { ReplySinks, CallerReply, StepResult } from './run.types';

export interface WorkflowEnv {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundle;
}

/**
 * One per test file (beforeAll), closed with `env.teardown()` (which leaves the
 * server running). The dev server and the bundle are the run's, started once by
 * test/workflow-global-setup.ts. Not `createTimeSkipping()`: it downloads its
 * test server from temporal.download when first used, and these machines reach
 * package registries only. The dev server runs in real time: no workflow here
 * waits on a timer.
 */
export async function startWorkflowEnv(): Promise<WorkflowEnv> {
  const { TEMPORAL_ADDRESS: address, TEMPORAL_WORKFLOW_BUNDLE: bundlePath } = process.env;
  if (!address || !bundlePath) throw new Error('workflows/*.test.ts run in the workflow tier: `npx jest workflows/` (its global setup starts Temporal)');
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Another test file in this jest worker installed it.
  }
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address });
  return { env, bundle: { code: fs.readFileSync(bundlePath, 'utf8') } };
}

/** Mocked activities, typed as the real ones: a mock the workflows cannot call fails to compile. */
export type ActivityMocks = Partial<Activities>;

/**
 * Runs `test` while a worker polls a task queue of its own with these mocks;
 * `answers` collects what the interpreter's `callerReplies` sink hands the
 * worker's process (a waiting caller beside it). A failed run asks
 * `errorRunPrepare` for its error workflow; unless the mocks say otherwise,
 * the definition names none (an unregistered activity would be retried for
 * 7.5 s before the run gave up on it).
 */
export async function withWorker<T>(
  { env, bundle }: WorkflowEnv,
  activities: ActivityMocks,
  test: (context: { taskQueue: string; answers: CallerReply[] }) => Promise<T>,
): Promise<T> {
  const taskQueue = `unit-${randomUUID()}`;
  const answers: CallerReply[] = [];
  const sinks: InjectedSinks<ReplySinks> = {
    callerReplies: {
      answered: {
        fn: (_info, answer) => {
          answers.push(answer);
        },
        callDuringReplay: false,
      },
    },
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities: { errorRunPrepare: async () => null, ...activities },
    sinks,
  });
  return worker.runUntil(test({ taskQueue, answers }));
}

/** A step activity's result for this output, sized as it travels. */
export const stepResult = (output: unknown): StepResult => ({ kept: 'inline', output, bytes: Buffer.byteLength(JSON.stringify(output) ?? '') });
