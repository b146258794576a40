import type { ApiAnswer, ApiSchema } from '../../api/schemas';

/** Shapes the settings pages read: aliases of the generated API types (connections, environments, organizations, tokens schemas). */

export type Role = ApiSchema<'Member'>['role'];
export const ROLES = ['owner', 'admin', 'developer', 'analyst', 'viewer'] as const satisfies readonly Role[];

/** GET /organization: the active organization, with the caller's role and permissions in it. */
export type Organization = ApiSchema<'ActiveOrganization'>;
export type Connection = ApiSchema<'Connection'>;
/** GET /connections/{id}/config/redacted: a config's non-secret values and the names of its secrets that are set. */
export type RedactedConfig = ApiSchema<'RedactedConnectionConfig'>;
export type Environment = ApiSchema<'Environment'>;
export type Member = ApiSchema<'Member'>;
export type Invitation = ApiSchema<'Invitation'>;
export type AccessToken = ApiSchema<'AccessToken'>;
/** A token as POST /tokens answers it: the secret, shown once. */
export type IssuedAccessToken = ApiSchema<'IssuedAccessToken'>;
/** An invitation as POST /organization/invitations answers it: the code, shown once. */
export type CreatedInvitation = ApiSchema<'CreatedInvitation'>;
export type EnvironmentValues = ApiAnswer<'/environments/{id}/variables', 'get'>;
export type ConnectionTypes = ApiAnswer<'/connections/types/list', 'get'>;

export type ConnectionList = ApiAnswer<'/connections', 'get'>;
export type EnvironmentList = ApiAnswer<'/environments', 'get'>;
export type MemberList = ApiAnswer<'/organization/members', 'get'>;
export type InvitationList = ApiAnswer<'/organization/invitations', 'get'>;
export type TokenList = ApiAnswer<'/tokens', 'get'>;
/** GET /organization/llm-prices: every LLM price in effect for the organization, each with its source. */
export type LlmPrices = ApiAnswer<'/organization/llm-prices', 'get'>;
export type LlmPrice = ApiSchema<'LlmPrice'>;
/** One of the organization's own entries, as PUT /organization/llm-prices takes them. */
export type LlmPriceEntry = ApiSchema<'LlmPriceEntry'>;

/**
 * Client-only: the subset of JSON Schema the console's connection form reads from the connection type
 * catalog's schemas (the API publishes them as free-form JSON Schema documents).
 */
export interface JsonSchema {
  title?: string;
  description?: string;
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  writeOnly?: boolean;
  oneOf?: JsonSchema[];
  discriminator?: { propertyName: string };
}
