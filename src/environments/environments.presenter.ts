import { type EnvironmentWithKeys } from './environments.repository';

/** An environment as the API shows it: variable keys and flags, never values. */
export function presentEnvironment(e: EnvironmentWithKeys) {
  const { id, suid, organizationId, name, description, variables, createdAt, updatedAt } = e;
  return { id, suid, organizationId, name, description, variables, createdAt, updatedAt };
}
