import type { DataSource } from 'typeorm';
import { createSecretServices } from '../src/app/services';
import type { Config } from '../src/config/config';
import type { MasterKeyring } from '../src/crypto/master-keyring';
import { dataStoresService, type DataStoresService } from '../src/data-stores/data-stores.service';
import { NotFoundError } from '../src/errors/errors';
import { ExecutionAnswersRepository } from '../src/executions/execution-answers.repository';
import { ExecutionsRepository } from '../src/executions/executions.repository';
import { RunAnswerVault } from '../src/executions/run-answer-vault';
import type { Logger } from '../src/logging/logger';
import { createLiquid } from '../src/templates/template-engine';
import { TemplateRenderer } from '../src/templates/template-renderer';
import { createOutboundHttp, type OutboundHttp } from './http/outbound-http';
import type { LlmSettings } from './steps/llm-step';
import { StepError } from './steps/step-errors';
import type { SecretSources } from './steps/step-scope';

/** What activities may use; handed in by the worker, replaced freely in tests. */
export interface ActivityDeps {
  db: DataSource;
  logger: Logger;
  dataStores: DataStoresService;
  executions: ExecutionsRepository;
  renderer: TemplateRenderer;
  secrets: SecretSources;
  http: OutboundHttp;
  llm: LlmSettings;
  /** Where a return step seals an answer that holds secrets, for the waiting caller. */
  answers: Pick<RunAnswerVault, 'seal'>;
}

/** A model call may take this long before the step gives up (the workflow's activity timeout is longer). */
export const LLM_TIMEOUT_MS = 100_000;

/** Builds the worker's activity dependencies from its infrastructure; `close` releases the HTTP client. */
export function createActivityDeps(infra: {
  db: DataSource;
  logger: Logger;
  keyring: MasterKeyring;
  config: Config;
}): ActivityDeps & { close(): Promise<void> } {
  const { environments, connections, catalog, box } = createSecretServices(infra.db, infra.keyring);
  const secrets: SecretSources = {
    async environmentValues(organizationId, environmentId) {
      try {
        return await environments.valuesForRun(organizationId, environmentId);
      } catch (err) {
        if (err instanceof NotFoundError) throw new StepError('The environment this run uses no longer exists', 'EnvironmentNotFound');
        throw err;
      }
    },
    async connectionByName(organizationId, connectionName) {
      const found = await connections.resolveByName(organizationId, connectionName);
      if (!found) return undefined;
      const { id, name, type } = found.connection;
      return { id, name, type, config: found.config, secretValues: catalog.secretValues(type, found.config) };
    },
  };
  const http = createOutboundHttp({ allowList: infra.config.steps.httpAllowList, maxResponseBytes: infra.config.steps.httpMaxResponseBytes, maxRedirects: 5 });
  return {
    db: infra.db,
    logger: infra.logger,
    dataStores: dataStoresService(infra.db),
    executions: new ExecutionsRepository(infra.db),
    renderer: new TemplateRenderer(createLiquid()),
    secrets,
    http,
    llm: { baseUrls: infra.config.steps.llmBaseUrls, timeoutMs: LLM_TIMEOUT_MS },
    answers: new RunAnswerVault(new ExecutionAnswersRepository(infra.db), box),
    close: () => http.close(),
  };
}
