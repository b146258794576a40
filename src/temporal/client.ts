import { Client, Connection } from '@temporalio/client';
import { clientInterceptors } from '../observability/temporal-tracing';
import type { Tracing } from '../observability/tracing';

export interface TemporalHandle {
  connection: Connection;
  client: Client;
}

/** `tracing`: the client puts each start's trace context in its headers, so the run continues the caller's trace. */
export async function connectTemporal(address: string, namespace: string, tracing?: Tracing): Promise<TemporalHandle> {
  const connection = await Connection.connect({ address });
  return { connection, client: new Client({ connection, namespace, interceptors: clientInterceptors(tracing) }) };
}

/** True when the frontend answers a cheap call within the deadline. */
export async function temporalReachable(connection: Connection, timeoutMs = 2000): Promise<boolean> {
  try {
    await connection.withDeadline(Date.now() + timeoutMs, () => connection.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  }
}
