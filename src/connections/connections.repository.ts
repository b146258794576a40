import { type DataSource } from 'typeorm';
import { uniqueNameIndex } from '../db/unique-violation';
import type { Page } from '../http/pagination';
import { Connection } from './connection.entity';

const uniqueName = uniqueNameIndex('connections_org_name_key', 'connection');

/** Every method takes the organization: there is no unscoped read. */
export class ConnectionsRepository {
  constructor(private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(Connection);
  }

  async list(organizationId: string, page: Page): Promise<{ total: number; data: Connection[] }> {
    const [data, total] = await this.repo.findAndCount({
      where: { organizationId },
      order: { createdAt: 'DESC', id: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { total, data };
  }

  async findById(organizationId: string, id: string): Promise<Connection | null> {
    return this.repo.findOneBy({ organizationId, id });
  }

  async findByName(organizationId: string, name: string): Promise<Connection | null> {
    return this.repo.findOneBy({ organizationId, name });
  }

  /** The organization's connections of one type, oldest first, at most `limit`. */
  async findByType(organizationId: string, type: string, limit: number): Promise<Connection[]> {
    return this.repo.find({ where: { organizationId, type }, order: { createdAt: 'ASC', id: 'ASC' }, take: limit });
  }

  async insert(connection: Connection): Promise<Connection> {
    await uniqueName(connection.name, () => this.repo.insert(connection));
    return (await this.findById(connection.organizationId, connection.id))!;
  }

  async update(organizationId: string, id: string, changes: Partial<Connection>): Promise<Connection | null> {
    await uniqueName(changes.name, () => this.repo.update({ organizationId, id }, changes));
    return this.findById(organizationId, id);
  }

  /**
   * Updates the row only while its config is still `configEncrypted` (compare-and-swap); null when it is not (changed
   * meanwhile) or the row is gone.
   */
  async updateIfConfigIs(organizationId: string, id: string, configEncrypted: string, changes: Partial<Connection>): Promise<Connection | null> {
    const result = await uniqueName(changes.name, () => this.repo.update({ organizationId, id, configEncrypted }, changes));
    return result.affected ? this.findById(organizationId, id) : null;
  }

  /** Deletes and returns the row, or null if there was none in this organization. */
  async delete(organizationId: string, id: string): Promise<Connection | null> {
    const existing = await this.findById(organizationId, id);
    if (!existing) return null;
    await this.repo.delete({ organizationId, id });
    return existing;
  }
}
