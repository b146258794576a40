import { useMemo } from 'react';
import { get, withQuery } from '../../../api/client';
import type { ApiAnswer } from '../../../api/schemas';
import { useSession } from '../../../session/session';
import { useApi } from '../../../ui/use-api';
import { describeSchedule } from '../schedule-triggers';
import type { GraphTrigger } from './definition-graph';
import type { TemplateContext } from './template-suggestions';

type WebhookTriggers = ApiAnswer<'/webhook-triggers', 'get'>;
type ScheduleTriggers = ApiAnswer<'/schedule-triggers', 'get'>;
type Environments = ApiAnswer<'/environments', 'get'>;
type Connections = ApiAnswer<'/connections', 'get'>;
type Workflows = ApiAnswer<'/workflows', 'get'>;

/**
 * What the graph shows around a workflow's definition: its triggers as the
 * entry, the workflows a core.workflow step can link to, and the names its
 * templates can complete (the environment's variable keys, never values; the
 * organization's connection names, for those who may see them).
 */
export function useGraphContext(workflow: { id: string; settings: { defaultEnvironmentId: string | null } } | undefined) {
  const { can } = useSession();
  const id = workflow?.id;
  const environmentId = workflow?.settings.defaultEnvironmentId;
  const hooksPath = id ? withQuery('/webhook-triggers', { workflowId: id, limit: 100 }) : null;
  const schedulesPath = id ? withQuery('/schedule-triggers', { workflowId: id, limit: 100 }) : null;
  const hooks = useApi(hooksPath, (signal) => get<WebhookTriggers>(hooksPath!, { signal }));
  const schedules = useApi(schedulesPath, (signal) => get<ScheduleTriggers>(schedulesPath!, { signal }));
  const environments = useApi('/environments?limit=100', (signal) => get<Environments>('/environments?limit=100', { signal }));
  const connectionsPath = can('secrets:view') ? '/connections?limit=1000' : null;
  const connections = useApi(connectionsPath, (signal) => get<Connections>(connectionsPath!, { signal }));
  const workflows = useApi('/workflows?limit=1000', (signal) => get<Workflows>('/workflows?limit=1000', { signal }));

  return useMemo(() => {
    const triggers: GraphTrigger[] = [
      ...(hooks.data?.data ?? []).map((t) => ({ id: `trigger:${t.id}`, label: `Webhook ${t.name}`, detail: `${t.method} /w/…/${t.name}` })),
      ...(schedules.data?.data ?? []).map((s) => ({
        id: `trigger:${s.id}`,
        label: `Schedule ${s.name}${s.paused ? ' (paused)' : ''}`,
        detail: describeSchedule(s.schedule),
      })),
    ];
    const envs = environments.data?.data ?? [];
    const env = envs.find((e) => e.id === environmentId);
    const envNames = [...new Set((env ? [env] : envs).flatMap((e) => e.variables.map((v) => v.key)))];
    const context: TemplateContext = { envNames, connectionNames: (connections.data?.data ?? []).map((c) => c.name) };
    const ids = new Map((workflows.data?.data ?? []).map((w) => [w.name, w.id]));
    const childHref = (name: string) => (ids.has(name) ? `/console/workflows/${ids.get(name)}` : undefined);
    return { triggers, context, childHref };
  }, [hooks.data, schedules.data, environments.data, connections.data, workflows.data, environmentId]);
}
