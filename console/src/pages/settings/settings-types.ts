/** Shapes the settings pages read, as the API answers them (connections, environments, organizations, tokens schemas). */

export type Role = 'owner' | 'admin' | 'developer' | 'analyst' | 'viewer';
export const ROLES: Role[] = ['owner', 'admin', 'developer', 'analyst', 'viewer'];

export interface Organization {
  id: string;
  suid: string;
  name: string;
  plan: string;
  role: Role;
  permissions: string[];
  createdAt: string;
}

export interface Connection {
  id: string;
  name: string;
  type: string;
  variant?: string;
  createdAt: string;
  updatedAt: string;
}

/** The subset of JSON Schema the connection type catalog publishes. */
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

export interface Environment {
  id: string;
  name: string;
  description: string | null;
  variables: Array<{ key: string; secret: boolean; updatedAt: string }>;
  createdAt: string;
  updatedAt: string;
}

export interface Member {
  userId: string;
  email: string;
  name: string | null;
  role: Role;
  createdAt: string;
}

export interface Invitation {
  id: string;
  email: string;
  name: string | null;
  role: Role;
  expiresAt: string;
  createdAt: string;
}

export interface AccessToken {
  id: string;
  name: string;
  tokenPrefix: string;
  kind: 'personal' | 'delegated';
  expiresAt: string | null;
  lastUsedAt?: string | null;
  createdAt: string;
}

export interface Paged<T> {
  total: number;
  data: T[];
}
