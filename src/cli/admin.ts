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

const USAGE = `usage: npm run admin -- <command> [options]

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

/** Runs one admin command; stdout carries only the JSON result, logs go to stderr. */
async function main(argv: string[]): Promise<unknown> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: { name: { type: 'string' }, email: { type: 'string' }, plan: { type: 'string' }, 'user-name': { type: 'string' }, org: { type: 'string' } },
    strict: true,
  });
  const config = loadConfig();
  const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel, pino.destination(2));

  if (command === 'rotate-master-key') {
    if (config.crypto.masterKey) throw new UsageError('MASTER_KEY is set: rotate it in your secret store and use rewrap-keys');
    const keyFile = path.join(config.dataDir, MASTER_KEY_FILE);
    loadMasterKeyring(config, logger); // creates the file on a fresh data directory
    fs.appendFileSync(path.join(config.dataDir, PREVIOUS_MASTER_KEYS_FILE), fs.readFileSync(keyFile, 'utf8').trim() + '\n', { mode: 0o600 });
    fs.writeFileSync(keyFile, generateMasterKey() + '\n', { mode: 0o600 });
  } else if (command !== 'create-org' && command !== 'create-token' && command !== 'set-plan' && command !== 'rewrap-keys') {
    throw new UsageError(command ? `Unknown command "${command}"` : 'No command given');
  }

  const args = command === 'create-org' ? CreateOrgArgs.safeParse(values) : undefined;
  if (args && !args.success) throw new UsageError(args.error.issues.map((i) => i.message).join('; '));
  const tokenArgs = command === 'create-token' ? CreateTokenArgs.safeParse(values) : undefined;
  if (tokenArgs && !tokenArgs.success) throw new UsageError(tokenArgs.error.issues.map((i) => i.message).join('; '));
  const planArgs = command === 'set-plan' ? SetPlanArgs.safeParse(values) : undefined;
  if (planArgs && !planArgs.success) throw new UsageError(planArgs.error.issues.map((i) => i.message).join('; '));

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
    if (args?.success) {
      const { organization, userId, token } = await service.createOrganization({
        name: args.data.name,
        plan: args.data.plan,
        owner: { email: args.data.email, name: args.data['user-name'] },
        tokenName: 'bootstrap',
      });
      return { organizationId: organization.id, organizationSuid: organization.suid, userId, token: token.token };
    }
    if (tokenArgs?.success) {
      const organization = await service.getByRef(tokenArgs.data.org);
      const member = await service.memberByEmail(organization.id, tokenArgs.data.email);
      const token = await tokens.issuePersonal(organization.id, member.userId, tokenArgs.data.name);
      return { organizationId: organization.id, userId: member.userId, token: token.token };
    }
    if (planArgs?.success) {
      const { organization, previousPlan } = await service.setPlan(planArgs.data.org, planArgs.data.plan);
      const dataStoreSharing = PLAN_FEATURES[organization.plan].dataStoreSharing;
      const revokedShares = dataStoreSharing ? 0 : await shares.revokeAllGranted(organization.id);
      return { organizationId: organization.id, plan: organization.plan, previousPlan, dataStoreSharing, revokedShares };
    }
    return await keys.rewrapAll();
  } finally {
    await backends.close();
  }
}

class UsageError extends Error {}

main(process.argv.slice(2))
  .then((result) => {
    process.stdout.write(JSON.stringify(result) + '\n');
    process.exit(0);
  })
  .catch((err) => {
    if (err instanceof UsageError || err instanceof ConfigError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${err.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    process.stderr.write(`admin command failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
