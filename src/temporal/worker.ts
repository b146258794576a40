import { NativeConnection, Worker } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import { createActivities } from '../../activities';
import { dataStoresService } from '../data-stores/data-stores.service';
import type { Logger } from '../logging/logger';

export interface WorkerOptions {
  address: string;
  namespace: string;
  taskQueue: string;
  db: DataSource;
  logger: Logger;
}

/** Creates (does not run) the worker: workflows from workflows/, activities from activities/. */
export async function createWorker(options: WorkerOptions): Promise<{ worker: Worker; connection: NativeConnection }> {
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities: createActivities({ db: options.db, logger: options.logger, dataStores: dataStoresService(options.db) }),
  });
  return { worker, connection };
}
