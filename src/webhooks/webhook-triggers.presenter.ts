import { type WebhookTrigger } from './webhook-trigger.entity';

/** A trigger as the API shows it: its public URL, never the secret's hash. `secret` only when just generated. */
export function presentTrigger(t: WebhookTrigger, organizationSuid: string, webhookBaseUrl: string, secret?: string) {
  return {
    id: t.id,
    suid: t.suid,
    organizationId: t.organizationId,
    workflowId: t.workflowId,
    name: t.name,
    method: t.method,
    authentication: t.authentication,
    url: `${webhookBaseUrl.replace(/\/$/, '')}/w/@${organizationSuid}/${t.name}`,
    secretSetAt: t.secretSetAt?.toISOString() ?? null,
    ...(secret ? { secret } : {}),
    createdAt: t.createdAt.toISOString(),
    updatedAt: t.updatedAt.toISOString(),
  };
}
