import type { Connection } from '@temporalio/client';
import type { DatabaseDiagnostics } from '../db/database-diagnostics';
import { defineRoute, type RouteContext } from '../http/route';
import { z } from '../openapi/zod';
import { temporalReachable } from '../temporal/client';

const Check = z.object({ ok: z.boolean(), latencyMs: z.number() });
const Health = z.object({ status: z.enum(['ok', 'degraded']), database: Check, temporal: Check }).openapi('Health');

async function timed(check: () => Promise<boolean>): Promise<{ ok: boolean; latencyMs: number }> {
  const started = performance.now();
  const ok = await check().catch(() => false);
  return { ok, latencyMs: Math.round(performance.now() - started) };
}

export function registerHealthRoutes(ctx: RouteContext, diagnostics: Pick<DatabaseDiagnostics, 'reachable'>, temporal: Connection): void {
  defineRoute(ctx, {
    method: 'get',
    path: '/healthz',
    tags: ['Health'],
    summary: 'Database and Temporal reachability (503 when either is down)',
    responses: { 200: { description: 'All reachable', schema: Health }, 503: { description: 'Something is down', schema: Health } },
    handler: async () => {
      const [database, temporalCheck] = await Promise.all([timed(() => diagnostics.reachable()), timed(() => temporalReachable(temporal))]);
      const ok = database.ok && temporalCheck.ok;
      return { status: ok ? 200 : 503, body: { status: ok ? 'ok' : 'degraded', database, temporal: temporalCheck } };
    },
  });
}
