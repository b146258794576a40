import type { EntityManager } from 'typeorm';
import type { DashboardsRepository } from '../dashboards/dashboards.repository';
import type { DataSourcesService } from '../data-sources/data-sources.service';
import type { SourceMembersService } from '../data-sources/source-members.service';
import type { DataStoresService } from '../data-stores/data-stores.service';
import type { AfterCommit } from '../lib/after-commit';
import type { WorkflowsService } from '../workflows/workflows.service';
import type { PackagesRepository } from './packages.repository';

/**
 * What an install or uninstall writes through, all built over the
 * EntityManager of its transaction (PackagesRepository.transaction): the same
 * services and repositories as the API's own routes, so a package's
 * workflows, sources and dashboards pass the same checks and a new workflow
 * version is made the same way, yet nothing commits unless everything does.
 *
 * The repositories are constructed over the manager rather than given it on
 * each call: an install goes through some thirty service and repository
 * methods, each calling others, and a manager parameter threaded through all
 * of them is one forgotten argument away from a statement on the pool,
 * outside the transaction. Built over the transaction's manager, a
 * repository has no other way to the database. Their own `transaction()`
 * calls become savepoints in it (TypeORM nests a transaction on a
 * transactional EntityManager as a SAVEPOINT).
 *
 * Deleting a workflow or a source goes through the same hooks as the routes'
 * deletes (src/app/services.ts attachDeleteHooks): what they do outside the
 * database, deleting Temporal Schedules, is queued in `afterCommit`, which
 * PackagesService runs once the transaction has committed.
 */
export interface InstallScope {
  packages: PackagesRepository;
  workflows: WorkflowsService;
  dataStores: DataStoresService;
  dataSources: DataSourcesService;
  sourceMembers: SourceMembersService;
  dashboards: DashboardsRepository;
  /** Work outside the database the transaction's deletes bring (schedules to delete): run after COMMIT, dropped on ROLLBACK. */
  afterCommit: AfterCommit;
}

/** Builds the scope over a transaction's EntityManager; the composition root (src/app/services.ts) supplies it. */
export type InstallScopeFactory = (manager: EntityManager) => InstallScope;
