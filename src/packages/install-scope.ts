import type { DataSource } from 'typeorm';
import type { DashboardsRepository } from '../dashboards/dashboards.repository';
import type { DataSourcesService } from '../data-sources/data-sources.service';
import type { DataStoresService } from '../data-stores/data-stores.service';
import type { WorkflowsService } from '../workflows/workflows.service';
import type { PackagesRepository } from './packages.repository';

/**
 * What an install or uninstall writes through, all built on one
 * transaction-bound DataSource (PackagesRepository.transaction): the same
 * services and repositories as the API's own routes, so a package's
 * workflows, sources and dashboards pass the same checks and a new workflow
 * version is made the same way, yet nothing commits unless everything does.
 */
export interface InstallScope {
  packages: PackagesRepository;
  workflows: WorkflowsService;
  dataStores: DataStoresService;
  dataSources: DataSourcesService;
  dashboards: DashboardsRepository;
}

/** Builds the scope on a DataSource; the composition root (src/app/services.ts) supplies it. */
export type InstallScopeFactory = (db: DataSource) => InstallScope;
