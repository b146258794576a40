import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { msToTs } from '@temporalio/common/lib/time';
import { TEMPORAL_CLI } from '../src/infra/temporal-dev-server';
import { ensureSearchAttributes, type SearchAttributeOperator, SearchAttributesMissingError } from '../src/temporal/search-attribute-check';
import { SEARCH_ATTRIBUTES } from '../src/temporal/search-attributes';
import { eventually } from './factories';

/**
 * The start check of search attributes (src/temporal/search-attribute-check.ts)
 * against the suite's Temporal dev server, each case on a namespace of its own
 * that lacks them (the dev server registers them on `default` only).
 */

const address = process.env.TEMPORAL_ADDRESS!;
let connection: Connection;
beforeAll(async () => {
  connection = await Connection.connect({ address });
});
afterAll(() => connection?.close());

const NAMES = Object.keys(SEARCH_ATTRIBUTES);
const keyword = encodeSearchAttributeIndexedValueType(SearchAttributeType.KEYWORD)!;
const text = encodeSearchAttributeIndexedValueType(SearchAttributeType.TEXT)!;

/** A new namespace, once the frontend serves it (the namespace registry refreshes on its own schedule). */
async function newNamespace(): Promise<string> {
  const namespace = `sa-check-${randomBytes(4).toString('hex')}`;
  await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
  await eventually(
    () =>
      connection.operatorService.listSearchAttributes({ namespace }).then(
        () => true,
        () => false,
      ),
    (served) => served,
  );
  return namespace;
}

const customAttributes = async (namespace: string) => (await connection.operatorService.listSearchAttributes({ namespace })).customAttributes ?? {};

/** The operator service of a managed cluster that lets the service list but not add. */
const refusing = (): SearchAttributeOperator => ({
  listSearchAttributes: (req) => connection.operatorService.listSearchAttributes(req),
  addSearchAttributes: () =>
    Promise.reject(Object.assign(new Error('7 PERMISSION_DENIED: Request unauthorized.'), { code: 7, details: 'Request unauthorized.', metadata: {} })),
});

test('a namespace lacking one attribute gets it registered; a second check finds nothing to do', async () => {
  const namespace = await newNamespace();
  const others = Object.fromEntries(NAMES.filter((n) => n !== 'FeedKey').map((n) => [n, keyword]));
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: others });

  await expect(ensureSearchAttributes(connection.operatorService, { namespace })).resolves.toEqual(['FeedKey']);
  expect(await customAttributes(namespace)).toMatchObject(Object.fromEntries(NAMES.map((n) => [n, keyword])));
  await expect(ensureSearchAttributes(connection.operatorService, { namespace })).resolves.toEqual([]);
});

test('two processes checking a bare namespace at once both start, and it gets each attribute once', async () => {
  const namespace = await newNamespace();
  const [a, b] = await Promise.all([
    ensureSearchAttributes(connection.operatorService, { namespace }),
    ensureSearchAttributes(connection.operatorService, { namespace }),
  ]);
  expect([...a, ...b].sort()).toEqual(expect.arrayContaining([...NAMES].sort()));
  expect(await customAttributes(namespace)).toEqual(Object.fromEntries(NAMES.map((n) => [n, keyword])));
});

test('when registering is refused, start is refused naming what is missing and the command; that command fixes it', async () => {
  const namespace = await newNamespace();
  const error = await ensureSearchAttributes(refusing(), { namespace, address }).catch((err: unknown) => err);
  expect(error).toBeInstanceOf(SearchAttributesMissingError);
  const { message, missing, command } = error as SearchAttributesMissingError;
  expect(missing).toEqual(NAMES);
  expect(message).toContain(
    'Missing: OrganizationId (Keyword), WorkflowName (Keyword), TriggerName (Keyword), WaitingFor (Keyword), DeliveryId (Keyword), DataSourceId (Keyword), FeedKey (Keyword).',
  );
  expect(message).toContain('Request unauthorized.');
  const pairs = NAMES.map((n) => `--name ${n} --type Keyword`).join(' ');
  expect(command).toBe(`temporal operator search-attribute create --address ${address} --namespace ${namespace} ${pairs}`);
  expect(message).toContain(`Add them, then start again:\n  ${command}`);

  // The operator runs the command as printed (our copy of the CLI in place of `temporal`), and the service then starts.
  await promisify(execFile)(TEMPORAL_CLI, command.split(' ').slice(1));
  await expect(ensureSearchAttributes(refusing(), { namespace, address })).resolves.toEqual([]);
});

test('an attribute of another type is refused, not re-registered', async () => {
  const namespace = await newNamespace();
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: { FeedKey: text } });
  const error = await ensureSearchAttributes(connection.operatorService, { namespace }).catch((err: unknown) => err);
  expect(error).toBeInstanceOf(SearchAttributesMissingError);
  expect((error as Error).message).toContain('FeedKey exists with type Text, but the service sets Keyword');
  expect((await customAttributes(namespace)).OrganizationId).toBeUndefined();
});

test('a namespace that does not exist is named, with the command that creates it', async () => {
  const namespace = `sa-absent-${randomBytes(4).toString('hex')}`;
  await expect(ensureSearchAttributes(connection.operatorService, { namespace })).rejects.toThrow(
    `create it: temporal operator namespace create --namespace ${namespace}`,
  );
});
