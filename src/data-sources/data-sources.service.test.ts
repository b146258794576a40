import type { AnalyticsSource } from './analytics-source.entity';
import type { DataSourcesRepository } from './data-sources.repository';
import { DataSourcesService } from './data-sources.service';

describe('DataSourcesService.delete and its listener', () => {
  const source = { id: 'ds-1', organizationId: 'org-1', shareId: null, dataStoreTableName: 't' } as unknown as AnalyticsSource;
  const repository = { find: async () => source, delete: async () => true } as unknown as DataSourcesRepository;
  const shares = { grantedForTable: async () => [] } as never;

  it('a failing listener (the schedule could not be deleted) is logged; the committed delete still succeeds', async () => {
    const service = new DataSourcesService(repository, {} as never, shares);
    const warn = jest.fn();
    service.onDeleted(() => Promise.reject(new Error('Temporal unreachable')), { warn });
    await expect(service.delete('org-1', 'ds-1')).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ dataSourceId: 'ds-1', err: 'Temporal unreachable' }), expect.any(String));
  });
});
