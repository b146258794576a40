import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { z } from 'zod';
import { AccessTokensRepository } from '../auth/access-tokens.repository';
import { ConfigError, loadConfig } from '../config/config';
import { loadMasterKeyring, MASTER_KEY_FILE, PREVIOUS_MASTER_KEYS_FILE } from '../crypto/master-key-source';
import { generateMasterKey } from '../crypto/master-keyring';
import { OrganizationKeys } from '../crypto/organization-keys';
import { OrganizationKeysRepository } from '../crypto/organization-keys.repository';
import { startBackends } from '../infra/bootstrap';
import { createLogger } from '../logging/logger';
import { PLAN_TIERS } from '../organizations/organization.entity';
import { OrganizationsRepository } from '../organizations/organizations.repository';
import { PLAN_FEATURES } from '../organizations/plans';
import { SharesRepository } from '../shares/shares.repository';
import { SharesService } from '../shares/shares.service';
import { DataSourcesRepository } from '../data-sources/data-sources.repository';
import { dataStoresService } from '../data-stores/data-stores.service';
import { OrganizationsService } from '../organizations/organizations.service';
import { TokensService } from '../auth/tokens.service';

export const USAGE = `usage: npm run admin -- <command> [options]

  create-org --name <name> --email <email> [--plan ${PLAN_TIERS.join('|')}] [--user-name <name>]
      Creates an organization, its owner and an access token; prints
      {"organizationId","organizationSuid","userId","token"} on stdout.

  create-token --org <organization id or suid> --email <member email> [--name <token name>]
      Issues a personal access token to an existing member (one who lost
      theirs); prints {"organizationId","userId","token"} on stdout.

  set-plan --org <organization id or suid> --plan ${PLAN_TIERS.join('|')}
      Moves an organization to a plan (the plan decides, for example, whether
      it may share data store tables; moving to a plan without sharing revokes
      the shares it granted); prints
      {"organizationId","plan","previousPlan","dataStoreSharing","revokedShares"} on stdout.

  rewrap-keys
      Re-wraps every organization key under MASTER_KEY. Rotation without
      downtime: run the service with MASTER_KEY=<new> MASTER_KEY_PREVIOUS=<old>,
      run this, then drop MASTER_KEY_PREVIOUS.

  rotate-master-key
      Embedded mode only (no MASTER_KEY set): generates a new master key file,
      keeps the old one as previous, and re-wraps every organization key.`;

/** A mistake in the arguments: the process prints it with the usage and exits 2. */
class UsageError extends Error {}

const CreateTokenArgs = z.object({
  org: z.string().trim().min(1, '--org is required'),
  email: z.email('--email must be an e-mail address'),
  name: z.string().trim().min(1).max(100).default('operator'),
});

const SetPlanArgs = z.object({
  org: z.string().trim().min(1, '--org is required'),
  plan: z.enum(PLAN_TIERS, { error: `--plan must be one of ${PLAN_TIERS.join(', ')}` }),
});

const CreateOrgArgs = z.object({
  name: z.string().trim().min(1, '--name is required').max(200),
  email: z.email('--email must be an e-mail address'),
  plan: z.enum(PLAN_TIERS).default('free'),
  'user-name': z.string().optional(),
});

/** A command's options, or a UsageError naming each bad one ("--org is required"). */
function parsed<T extends z.ZodType>(schema: T, values: unknown): z.output<T> {
  const result = schema.safeParse(values);
  if (result.success) return result.data;
  // A flag's own message names it; the shared field messages (src/openapi/zod-messages.ts) leave the name to the caller.
  throw new UsageError(result.error.issues.map((i) => (i.message.startsWith('--') ? i.message : `--${i.path.join('.')} ${i.message}`)).join('; '));
}

/**
 * Runs one admin command and returns its JSON result; logs go to `logDestination` (stderr). Bad arguments
 * throw what `isUsageFailure` recognizes. admin.ts is the process around it (stdout, exit codes).
 */
export async function runAdminCommand(argv: string[], logDestination: pino.DestinationStream = pino.destination(2)): Promise<unknown> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: 'string' }, email: { type: 'string' }, plan: { type: 'string' }, 'user-name': { type: 'string' }, org: { type: 'string' } },
    strict: true,
  });
  const config = loadConfig();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, logDestination);

  if (command === 'rotate-master-key') {
    if (config.crypto.masterKey) throw new UsageError('MASTER_KEY is set: rotate it in your secret store and use rewrap-keys');
    const keyFile = path.join(config.dataDir, MASTER_KEY_FILE);
    loadMasterKeyring(config, logger); // creates the file on a fresh data directory
    fs.appendFileSync(path.join(config.dataDir, PREVIOUS_MASTER_KEYS_FILE), fs.readFileSync(keyFile, 'utf8').trim() + '\n', { mode: 0o600 });
    fs.writeFileSync(keyFile, generateMasterKey() + '\n', { mode: 0o600 });
  } else if (command !== 'create-org' && command !== 'create-token' && command !== 'set-plan' && command !== 'rewrap-keys') {
    throw new UsageError(command ? `Unknown command "${command}"` : 'No command given');
  }

  const args = command === 'create-org' ? parsed(CreateOrgArgs, values) : undefined;
  const tokenArgs = command === 'create-token' ? parsed(CreateTokenArgs, values) : undefined;
  const planArgs = command === 'set-plan' ? parsed(SetPlanArgs, values) : undefined;

  // Beside `npm start`, its DATA_DIR's PostgreSQL (the port it recorded there); alone, one of its own on that port.
  const backends = await startBackends(config, logger, { temporal: false, shareRunning: true });
  try {
    const keys = new OrganizationKeys(new OrganizationKeysRepository(backends.db), backends.keyring);
    const orgs = new OrganizationsRepository(backends.db);
    const tokens = new TokensService(new AccessTokensRepository(backends.db), orgs);
    const shares = new SharesService(
      new SharesRepository(backends.db.manager),
      orgs,
      dataStoresService(backends.db.manager),
      new DataSourcesRepository(backends.db.manager),
      logger,
    );
    const service = new OrganizationsService(orgs, tokens, keys, shares);
    if (args) {
      const { organization, userId, token } = await service.createOrganization({
        name: args.name,
        plan: args.plan,
        owner: { email: args.email, name: args['user-name'] },
        tokenName: 'bootstrap',
      });
      return { organizationId: organization.id, organizationSuid: organization.suid, userId, token: token.token };
    }
    if (tokenArgs) {
      const organization = await service.getByRef(tokenArgs.org);
      const member = await service.memberByEmail(organization.id, tokenArgs.email);
      const token = await tokens.issuePersonal(organization.id, member.userId, tokenArgs.name);
      return { organizationId: organization.id, userId: member.userId, token: token.token };
    }
    if (planArgs) {
      const { organization, previousPlan } = await service.setPlan(planArgs.org, planArgs.plan);
      const dataStoreSharing = PLAN_FEATURES[organization.plan].dataStoreSharing;
      const revokedShares = dataStoreSharing ? 0 : await shares.revokeAllGranted(organization.id);
      return { organizationId: organization.id, plan: organization.plan, previousPlan, dataStoreSharing, revokedShares };
    }
    return await keys.rewrapAll();
  } finally {
    await backends.close();
  }
}

/** Whether `err` is the caller's mistake (exit 2, with the usage) rather than the command's failure (exit 1). */
export function isUsageFailure(err: unknown): err is Error {
  return err instanceof UsageError || err instanceof ConfigError || (err as { code?: string })?.code?.startsWith('ERR_PARSE_ARGS') === true;
}
