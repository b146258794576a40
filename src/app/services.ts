import type { Connection as TemporalConnection, Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { AccessTokensRepository } from '../auth/access-tokens.repository';
import type { Config } from '../config/config';
import { ConnectionsRepository } from '../connections/connections.repository';
import { ConnectionsService } from '../connections/connections.service';
import { ConnectionTypeCatalog } from '../connections/types/catalog';
import type { MasterKeyring } from '../crypto/master-keyring';
import { OrganizationKeys } from '../crypto/organization-keys';
import { SecretBox } from '../crypto/secret-box';
import { DataStoresRepository } from '../data-stores/data-stores.repository';
import { dataStoresService } from '../data-stores/data-stores.service';
import { RecordPurger } from '../data-stores/record-purger';
import { createLiquid } from '../templates/template-engine';
import { WorkflowsRepository } from '../workflows/workflows.repository';
import { WorkflowsService } from '../workflows/workflows.service';
import { WebhookTriggersRepository } from '../webhooks/webhook-triggers.repository';
import { WebhookTriggersService } from '../webhooks/webhook-triggers.service';
import { EnvironmentsRepository } from '../environments/environments.repository';
import { EnvironmentsService } from '../environments/environments.service';
import type { Logger } from '../logging/logger';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { OrganizationsService } from '../organizations/organizations.service';

export interface Infrastructure {
  config: Config;
  logger: Logger;
  db: DataSource;
  keyring: MasterKeyring;
  temporal: { connection: TemporalConnection; client: Client };
}

/** Wires repositories and services once per process; tests build their own from their own infrastructure. */
export function createServices(infra: Infrastructure) {
  const keys = new OrganizationKeys(infra.db, infra.keyring);
  const box = new SecretBox(keys);
  const tokens = new AccessTokensRepository(infra.db);
  const catalog = new ConnectionTypeCatalog();
  const environments = new EnvironmentsService(new EnvironmentsRepository(infra.db), box);
  const workflows = new WorkflowsService(new WorkflowsRepository(infra.db), environments, createLiquid());
  return {
    ...infra,
    keys,
    box,
    tokens,
    catalog,
    organizations: new OrganizationsService(new OrganizationsRepository(infra.db), tokens, keys),
    connections: new ConnectionsService(new ConnectionsRepository(infra.db), catalog, box),
    environments,
    workflows,
    webhookTriggers: new WebhookTriggersService(new WebhookTriggersRepository(infra.db), workflows),
    dataStores: dataStoresService(infra.db),
    recordPurger: new RecordPurger(new DataStoresRepository(infra.db), infra.logger, infra.config.dataStores.purgeIntervalSeconds),
  };
}

export type Services = ReturnType<typeof createServices>;
