import type { DataSourcesService } from '../data-sources/data-sources.service';
import type { Page } from '../http/pagination';
import type { FeedSyncsRepository } from './feed-syncs.repository';
import type { FeedSync } from './feed-syncs.types';

/** Reads the sync history of a data source (GET /dashboards/data-sources/{id}/syncs). */
export class FeedSyncHistory {
  constructor(
    private readonly dataSources: Pick<DataSourcesService, 'get'>,
    private readonly syncs: Pick<FeedSyncsRepository, 'list'>,
  ) {}

  /**
   * The source's runs, newest first. The source must be the organization's
   * (404 exactly as reading it); a `custom` source never syncs, so its page is empty.
   */
  async list(organizationId: string, dataSourceId: string, page: Page): Promise<{ total: number; data: FeedSync[] }> {
    const source = await this.dataSources.get(organizationId, dataSourceId);
    if (source.type === 'custom') return { total: 0, data: [] };
    return this.syncs.list(organizationId, dataSourceId, page);
  }
}
