import { presentRecord } from '../src/data-stores/data-stores.presenter';
import { MAX_RECORDS_PER_WRITE, RecordKey, TableName, WriteRecord } from '../src/data-stores/data-stores.schemas';
import { ValidationError } from '../src/errors/errors';
import { toFieldIssues } from '../src/http/validation';
import { z } from '../src/openapi/zod';
import { businessFailure } from './business-failure';
import type { ActivityDeps } from './deps';

const WriteInput = z.object({
  organizationId: z.uuid(),
  tableName: TableName,
  records: z.array(WriteRecord).min(1).max(MAX_RECORDS_PER_WRITE),
});
const KeyInput = z.object({ organizationId: z.uuid(), tableName: TableName, key: RecordKey });

/**
 * The workflow engine's data store steps. They call the same service as the
 * API, so a step's write is validated and stored exactly like an API write
 * (tables it creates say `createdVia: "workflow"`). Bad input is a business
 * error: it fails the step without retries; anything else is retried.
 */
export function createDataStoreActivities({ dataStores }: Pick<ActivityDeps, 'dataStores'>) {
  return {
    async writeDataStoreRecords(input: z.input<typeof WriteInput>) {
      return asStepFailure(async () => {
        const { organizationId, tableName, records } = parseInput(WriteInput, input);
        const outcome = await dataStores.upsert(organizationId, tableName, records, 'workflow');
        // Keys, not records: up to 1,000 values of 256 KiB would not fit in workflow history.
        return { created: outcome.created, updated: outcome.updated, keys: outcome.records.map((r) => r.record.key) };
      });
    },

    /** The record, or null when the table or key does not exist (a step decides what absence means). */
    async readDataStoreRecord(input: z.input<typeof KeyInput>) {
      return asStepFailure(async () => {
        const { organizationId, tableName, key } = parseInput(KeyInput, input);
        const record = await dataStores.find(organizationId, tableName, key);
        return record ? presentRecord(record) : null;
      });
    },
  };
}

function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw new ValidationError('Invalid data store step input', toFieldIssues(parsed.error));
  return parsed.data;
}

/** Client errors (4xx) fail the step without retries; anything else is retried. */
async function asStepFailure<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw businessFailure(err) ?? err;
  }
}
