import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker, type InjectedSinks } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities';
import type { ReplySinks } from '../../workflows/run.types';
import { LocalReplies } from '../executions/local-replies';
import { activityInterceptors, tracingSinks, WORKFLOW_INTERCEPTOR_MODULES } from '../observability/temporal-tracing';
import type { Tracing } from '../observability/tracing';

/**
 * The workflow bundle `npm run build` writes beside the compiled code (dist/workflow-bundle.js, seen from
 * dist/src/temporal/). Run from the TypeScript sources there is none, and workflows/ is bundled at start (about 3 s).
 */
export const PREBUILT_WORKFLOW_BUNDLE = path.join(__dirname, '../../workflow-bundle.js');

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  deps: ActivityDeps;
  /** A bundle built beforehand (TEMPORAL_WORKFLOW_BUNDLE): the test suite builds one per run instead of about 3 s per worker. */
  workflowBundlePath?: string;
  /** Tracing, when this process exports traces (src/observability/tracing-start.ts). */
  tracing?: Tracing;
}

/** Where the worker's workflow code comes from: the bundle named, else dist's prebuilt one, else workflows/ bundled now. */
function workflowSource(bundlePath: string | undefined) {
  if (bundlePath) {
    if (!fs.existsSync(bundlePath)) throw new Error(`TEMPORAL_WORKFLOW_BUNDLE names ${bundlePath}, which does not exist`);
    return { workflowBundle: { codePath: bundlePath } };
  }
  if (fs.existsSync(PREBUILT_WORKFLOW_BUNDLE)) return { workflowBundle: { codePath: PREBUILT_WORKFLOW_BUNDLE } };
  return { workflowsPath: require.resolve('../../workflows') };
}

/**
 * Creates (does not run) the worker: workflows from workflows/ (a prebuilt bundle when there is one), activities
 * from activities/. `replies` receives every run's answer the moment this
 * worker's workflow has it, for callers waiting in this process.
 */
export async function createWorker(options: WorkerOptions): Promise<{ worker: Worker; connection: NativeConnection; replies: LocalReplies }> {
  const connection = await NativeConnection.connect({ address: options.address });
  const replies = new LocalReplies();
  const sinks: InjectedSinks<ReplySinks> = {
    callerReplies: { answered: { fn: (info, answer) => replies.deliver(info.workflowId, answer), callDuringReplay: false } },
    ...tracingSinks(options.tracing),
  };
  const source = workflowSource(options.workflowBundlePath);
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...source,
    activities: createActivities(options.deps),
    // A bundle made beforehand holds the workflow interceptor modules already; bundled here, they are named.
    interceptors: { activity: activityInterceptors(options.tracing), workflowModules: 'workflowsPath' in source ? WORKFLOW_INTERCEPTOR_MODULES : undefined },
    sinks,
    // After a crash, the runs this worker held wait on its sticky queue this long before any worker may take them
    // (10 s by default). Not much shorter: on a busy worker a task that waits longer moves off, and is replayed in full.
    stickyQueueScheduleToStartTimeout: '5 seconds',
  });
  return { worker, connection, replies };
}
