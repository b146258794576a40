import type { EntityManager } from 'typeorm';
import type { SecretBox } from '../crypto/secret-box';
import { NotFoundError, ValidationError } from '../errors/errors';
import type { Page } from '../http/pagination';
import { newId, newSuid } from '../ids';
import { EnvironmentVariable } from './environment-variable.entity';
import { Environment } from './environment.entity';
import { type EnvironmentsRepository, type EnvironmentWithKeys } from './environments.repository';
import { type CreateEnvironmentInput, MAX_VARIABLES_PER_ENVIRONMENT, type UpdateEnvironmentInput, type VariableInput } from './environments.schemas';

/** Binds a value's ciphertext to its environment and key. */
const recordRef = (environmentId: string, key: string) => `environment:${environmentId}|variable:${key}`;

export class EnvironmentsService {
  constructor(
    private readonly repo: EnvironmentsRepository,
    private readonly box: SecretBox,
  ) {}

  list(organizationId: string, page: Page) {
    return this.repo.list(organizationId, page);
  }

  /** The environment with this name, or null (workflow settings and `?env=` name environments). */
  /** The id of the environment a request names; 400 `unknown_environment` (at `field`) when there is none. */
  async idByName(organizationId: string, name: string, field: string): Promise<string> {
    const environment = await this.repo.findByName(organizationId, name);
    if (!environment) throw new ValidationError(`No environment named "${name}"`, [{ path: field, message: 'no such environment' }], 'unknown_environment');
    return environment.id;
  }

  async get(organizationId: string, id: string): Promise<EnvironmentWithKeys> {
    const env = await this.repo.findById(organizationId, id);
    if (!env) throw new NotFoundError('Environment');
    return env;
  }

  async create(organizationId: string, input: CreateEnvironmentInput): Promise<EnvironmentWithKeys> {
    const id = newId();
    await this.repo.transaction(async (manager) => {
      const env = Object.assign(new Environment(), { id, suid: newSuid(), organizationId, name: input.name, description: input.description ?? null });
      await this.repo.insert(env, manager);
      await this.repo.upsertVariables(await this.encryptAll(organizationId, id, input.variables ?? {}, []), manager);
    });
    return this.get(organizationId, id);
  }

  async update(organizationId: string, id: string, input: UpdateEnvironmentInput): Promise<EnvironmentWithKeys> {
    await this.get(organizationId, id);
    const changes: Partial<Environment> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.description !== undefined) changes.description = input.description;
    if (Object.keys(changes).length > 0) await this.repo.update(organizationId, id, changes);
    return this.get(organizationId, id);
  }

  async delete(organizationId: string, id: string): Promise<EnvironmentWithKeys> {
    const deleted = await this.repo.delete(organizationId, id);
    if (!deleted) throw new NotFoundError('Environment');
    return deleted;
  }

  /** Plaintext values (callers need secrets:view). */
  /** Plaintext values by key; with `secrets: 'omit'`, only those that are not secrets (nothing secret is even decrypted). */
  async values(
    organizationId: string,
    id: string,
    options: { secrets: 'include' | 'omit' } = { secrets: 'include' },
  ): Promise<{ environmentId: string; name: string; variables: Record<string, string> }> {
    const env = await this.get(organizationId, id);
    const variables: Record<string, string> = {};
    const decrypted = await this.decryptAll(organizationId, id, (row) => options.secrets === 'include' || !row.secret);
    for (const [key, { value }] of Object.entries(decrypted)) variables[key] = value;
    return { environmentId: id, name: env.name, variables };
  }

  /** Plaintext values with their secret flags, for a run (decrypted in memory, never stored). */
  async valuesForRun(organizationId: string, id: string): Promise<Record<string, { value: string; secret: boolean }>> {
    await this.get(organizationId, id);
    return this.decryptAll(organizationId, id);
  }

  /** Replaces all variables: keys not given are removed. */
  async replaceVariables(organizationId: string, id: string, variables: Record<string, VariableInput>): Promise<EnvironmentWithKeys> {
    await this.inLockedEnvironment(organizationId, id, async (manager) => {
      const existing = await this.repo.findVariables(organizationId, id, manager);
      const removed = existing.map((v) => v.key).filter((k) => !Object.hasOwn(variables, k));
      await this.repo.deleteVariables(organizationId, id, removed, manager);
      await this.repo.upsertVariables(await this.encryptAll(organizationId, id, variables, existing), manager);
    });
    return this.get(organizationId, id);
  }

  async setVariable(organizationId: string, id: string, key: string, variable: VariableInput): Promise<EnvironmentWithKeys> {
    await this.inLockedEnvironment(organizationId, id, async (manager) => {
      const existing = await this.repo.findVariables(organizationId, id, manager);
      if (!existing.some((v) => v.key === key) && existing.length >= MAX_VARIABLES_PER_ENVIRONMENT) {
        throw new ValidationError(
          `An environment holds at most ${MAX_VARIABLES_PER_ENVIRONMENT} variables`,
          [{ path: 'key', message: 'Too many variables' }],
          'too_many_variables',
        );
      }
      await this.repo.upsertVariables(await this.encryptAll(organizationId, id, { [key]: variable }, existing), manager);
    });
    return this.get(organizationId, id);
  }

  async deleteVariable(organizationId: string, id: string, key: string): Promise<EnvironmentWithKeys> {
    await this.inLockedEnvironment(organizationId, id, async (manager) => {
      if ((await this.repo.deleteVariables(organizationId, id, [key], manager)) === 0) throw new NotFoundError('Variable');
    });
    return this.get(organizationId, id);
  }

  private async decryptAll(
    organizationId: string,
    id: string,
    wanted: (row: { secret: boolean }) => boolean = () => true,
  ): Promise<Record<string, { value: string; secret: boolean }>> {
    const rows = (await this.repo.findVariables(organizationId, id)).filter(wanted);
    const values: Record<string, { value: string; secret: boolean }> = Object.create(null);
    for (const row of rows) values[row.key] = { value: await this.box.decrypt(organizationId, recordRef(id, row.key), row.valueEncrypted), secret: row.secret };
    return values;
  }

  private async inLockedEnvironment(organizationId: string, id: string, work: (manager: EntityManager) => Promise<void>): Promise<void> {
    await this.repo.transaction(async (manager) => {
      if (!(await this.repo.lock(organizationId, id, manager))) throw new NotFoundError('Environment');
      await work(manager);
      await this.repo.touch(organizationId, id, manager);
    });
  }

  /** Rows to upsert; a variable given without `secret` keeps its current flag, or is secret when new. */
  private async encryptAll(
    organizationId: string,
    environmentId: string,
    variables: Record<string, VariableInput>,
    existing: EnvironmentVariable[],
  ): Promise<EnvironmentVariable[]> {
    const now = new Date();
    const current = new Map(existing.map((v) => [v.key, v.secret]));
    return Promise.all(
      Object.entries(variables).map(async ([key, { value, secret }]) =>
        Object.assign(new EnvironmentVariable(), {
          id: newId(),
          organizationId,
          environmentId,
          key,
          valueEncrypted: await this.box.encrypt(organizationId, recordRef(environmentId, key), value),
          secret: secret ?? current.get(key) ?? true,
          updatedAt: now,
        }),
      ),
    );
  }
}
