import { DataSource } from 'typeorm';
import { onUniqueViolation } from '../db/unique-violation';
import type { Page } from '../http/pagination';
import { WebhookTrigger } from './webhook-trigger.entity';

export class DuplicateTriggerName extends Error {}
const uniqueName = <T>(write: () => Promise<T>) => onUniqueViolation('webhook_triggers_org_name_key', () => new DuplicateTriggerName(), write);

/** Every method takes the organization: there is no unscoped read. */
export class WebhookTriggersRepository {
  constructor(private readonly db: DataSource) {}

  private get repo() {
    return this.db.getRepository(WebhookTrigger);
  }

  async list(organizationId: string, filter: { workflowId?: string }, page: Page): Promise<{ total: number; data: WebhookTrigger[] }> {
    const [data, total] = await this.repo.findAndCount({
      where: { organizationId, ...(filter.workflowId ? { workflowId: filter.workflowId } : {}) },
      order: { name: 'ASC' },
      take: page.limit,
      skip: page.offset,
    });
    return { total, data };
  }

  findById(organizationId: string, id: string): Promise<WebhookTrigger | null> {
    return this.repo.findOneBy({ organizationId, id });
  }

  findByName(organizationId: string, name: string): Promise<WebhookTrigger | null> {
    return this.repo.findOneBy({ organizationId, name });
  }

  async insert(trigger: WebhookTrigger): Promise<void> {
    await uniqueName(() => this.repo.insert(trigger));
  }

  async update(organizationId: string, id: string, changes: Partial<WebhookTrigger>): Promise<void> {
    await uniqueName(() => this.repo.update({ organizationId, id }, changes));
  }

  async delete(organizationId: string, id: string): Promise<boolean> {
    return ((await this.repo.delete({ organizationId, id })).affected ?? 0) > 0;
  }
}
