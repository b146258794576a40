import { type DataSource, type EntityManager, In } from 'typeorm';
import { uniqueNameIndex } from '../db/unique-violation';
import type { Page } from '../http/pagination';
import { EnvironmentVariable } from './environment-variable.entity';
import { Environment } from './environment.entity';

const uniqueName = uniqueNameIndex('environments_org_name_key', 'environment');

export interface EnvironmentWithKeys extends Environment {
  variables: Array<{ key: string; secret: boolean; updatedAt: Date }>;
}

/** Every method takes the organization: there is no unscoped read. */
export class EnvironmentsRepository {
  constructor(private readonly db: DataSource) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  async list(organizationId: string, page: Page): Promise<{ total: number; data: EnvironmentWithKeys[] }> {
    const [envs, total] = await this.db.getRepository(Environment).findAndCount({
      where: { organizationId },
      order: { name: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { total, data: await this.withKeys(organizationId, envs) };
  }

  async findById(organizationId: string, id: string, manager: EntityManager = this.db.manager): Promise<EnvironmentWithKeys | null> {
    const env = await manager.findOneBy(Environment, { organizationId, id });
    return env && (await this.withKeys(organizationId, [env], manager))[0];
  }

  async findByName(organizationId: string, name: string): Promise<Environment | null> {
    return this.db.getRepository(Environment).findOneBy({ organizationId, name });
  }

  async insert(env: Environment, manager: EntityManager): Promise<void> {
    await uniqueName(env.name, () => manager.insert(Environment, env));
  }

  async update(organizationId: string, id: string, changes: Partial<Environment>, manager: EntityManager = this.db.manager): Promise<void> {
    await uniqueName(changes.name, () => manager.update(Environment, { organizationId, id }, changes));
  }

  /** Locks the environment row so concurrent variable writes to it serialize. */
  async lock(organizationId: string, id: string, manager: EntityManager): Promise<boolean> {
    const rows = await manager.query(`SELECT id FROM environments WHERE organization_id = $1 AND id = $2 FOR UPDATE`, [organizationId, id]);
    return rows.length > 0;
  }

  async delete(organizationId: string, id: string): Promise<EnvironmentWithKeys | null> {
    return this.db.transaction(async (manager) => {
      const existing = await this.findById(organizationId, id, manager);
      if (!existing) return null;
      await manager.delete(Environment, { organizationId, id });
      return existing;
    });
  }

  async findVariables(organizationId: string, environmentId: string, manager: EntityManager = this.db.manager): Promise<EnvironmentVariable[]> {
    return manager.find(EnvironmentVariable, { where: { organizationId, environmentId }, order: { key: 'ASC' } });
  }

  /** Inserts or replaces variables by key, keeping each existing row's id (its encryption binding). */
  async upsertVariables(rows: EnvironmentVariable[], manager: EntityManager): Promise<void> {
    if (rows.length === 0) return;
    await manager
      .createQueryBuilder()
      .insert()
      .into(EnvironmentVariable)
      .values(rows)
      .orUpdate(['value_encrypted', 'secret', 'updated_at'], ['environment_id', 'key'])
      .execute();
  }

  async deleteVariables(organizationId: string, environmentId: string, keys: string[], manager: EntityManager): Promise<number> {
    if (keys.length === 0) return 0;
    const result = await manager.delete(EnvironmentVariable, { organizationId, environmentId, key: In(keys) });
    return result.affected ?? 0;
  }

  async touch(organizationId: string, id: string, manager: EntityManager): Promise<void> {
    await manager.update(Environment, { organizationId, id }, { updatedAt: new Date() });
  }

  private async withKeys(organizationId: string, envs: Environment[], manager: EntityManager = this.db.manager): Promise<EnvironmentWithKeys[]> {
    if (envs.length === 0) return [];
    const vars = await manager.find(EnvironmentVariable, {
      select: { environmentId: true, key: true, secret: true, updatedAt: true },
      where: { organizationId, environmentId: In(envs.map((e) => e.id)) },
      order: { key: 'ASC' },
    });
    return envs.map((e) =>
      Object.assign(e, { variables: vars.filter((v) => v.environmentId === e.id).map((v) => ({ key: v.key, secret: v.secret, updatedAt: v.updatedAt })) }),
    );
  }
}
