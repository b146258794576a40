import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker, type InjectedSinks } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../../activities';
import type { ReplySinks } from '../../workflows/run.types';
import { LocalReplies } from '../executions/local-replies';

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
}

/**
 * Creates (does not run) the worker: workflows from workflows/ (the prebuilt bundle when there is one), activities
 * from activities/. `replies` receives every run's answer the moment this
 * worker's workflow has it, for callers waiting in this process.
 */
export async function createWorker(options: WorkerOptions): Promise<{ worker: Worker; connection: NativeConnection; replies: LocalReplies }> {
  const connection = await NativeConnection.connect({ address: options.address });
  const replies = new LocalReplies();
  const sinks: InjectedSinks<ReplySinks> = {
    callerReplies: { answered: { fn: (info, answer) => replies.deliver(info.workflowId, answer), callDuringReplay: false } },
  };
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...(fs.existsSync(PREBUILT_WORKFLOW_BUNDLE)
      ? { workflowBundle: { codePath: PREBUILT_WORKFLOW_BUNDLE } }
      : { workflowsPath: require.resolve('../../workflows') }),
    activities: createActivities(options.deps),
    sinks,
    // After a crash, the runs this worker held wait on its sticky queue this long before any worker may take them
    // (10 s by default). Not much shorter: on a busy worker a task that waits longer moves off, and is replayed in full.
    stickyQueueScheduleToStartTimeout: '5 seconds',
  });
  return { worker, connection, replies };
}
