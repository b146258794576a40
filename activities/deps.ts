import type { DataSource } from 'typeorm';
import type { DataStoresService } from '../src/data-stores/data-stores.service';
import type { Logger } from '../src/logging/logger';

/** What activities may use; handed in by the worker, replaced freely in tests. */
export interface ActivityDeps {
  db: DataSource;
  logger: Logger;
  dataStores: DataStoresService;
}
