import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { REGISTER_TABLE, registerParams } from '../../src/data-stores/data-stores.repository';
import { LIVE, qualified } from '../../src/db/sql';
import { newId, newSuid } from '../../src/ids';
import { requestJson } from './http-client';
import { salesData } from './sales-data';
import type { BenchStack } from './stack';
import { fmt, lines } from './stats';

/**
 * The analytics benchmarks' data source: `records` sales (bench/lib/sales-data)
 * COPYed straight into data_store_records, then a data source over them
 * created through the API, which builds its serving relation.
 */

/** Generous: building the serving relation of a million records takes about half a minute on two cores. */
const LONG_TIMEOUT_MS = 30 * 60_000;

/** The sale's fields as a data source sees them: `amount` a measure (summed), `at` the time dimension. */
export const SALES_RECORD_SCHEMA = {
  name: 'Sale',
  fields: {
    amount: { type: 'number', label: 'Amount', measure: true },
    city: { type: 'string', label: 'City' },
    category: { type: 'string', label: 'Category' },
    at: { type: 'date', label: 'At', timeDimension: true },
  },
};

export interface SalesSource {
  /** The source's id and its serving relation's name (`ds_…`, also the prefix of its members). */
  sourceId: string;
  rel: string;
  copyMs: number;
  serviceBuildMs: number;
  servingRows: number;
}

/**
 * Loads `records` sales into the table `table` of the organization (COPY, with the
 * table's __meta__ row as the repository writes it, in one transaction), then
 * creates the source "Sales" over it. Both tables are vacuumed and analysed, as
 * autovacuum would have done by the time someone builds a dashboard on them
 * (and might otherwise do in the middle of the timings). Prints what it took.
 */
export async function loadSalesSource(stack: BenchStack, org: { organizationId: string; token: string }, table: string, records: number): Promise<SalesSource> {
  const { pool } = stack;
  const data = salesData(records);
  const now = Date.now();
  const stamp = new Date(now).toISOString();
  let t = performance.now();
  const loader = await pool.connect();
  try {
    await loader.query('BEGIN');
    await pipeline(
      Readable.from(
        lines(records, '', (i) => {
          const { key, value } = data.record(i, now);
          return `${newId()}\t${newSuid()}\t${org.organizationId}\t${table}\t${key}\t${JSON.stringify(value)}\t\\N\t${stamp}\t${stamp}\t${stamp}\n`;
        }),
      ),
      loader.query(
        copyFrom(
          `COPY data_store_records (id, suid, organization_id, table_name, key, value, expires_at, record_timestamp, created_at, updated_at) FROM STDIN`,
        ),
      ),
    );
    await loader.query(REGISTER_TABLE, registerParams(org.organizationId, table, 'import'));
    await loader.query('COMMIT');
    loader.release();
  } catch (err) {
    await loader.query('ROLLBACK').catch(() => undefined);
    loader.release(err as Error);
    throw err;
  }
  const copyMs = performance.now() - t;
  await pool.query('VACUUM ANALYZE data_store_records');

  t = performance.now();
  const created = await requestJson(
    'POST',
    stack.api('/dashboards/data-sources'),
    org.token,
    { name: 'Sales', dataStoreTableName: table, recordSchema: SALES_RECORD_SCHEMA },
    LONG_TIMEOUT_MS,
  );
  const serviceBuildMs = performance.now() - t;
  if (created.status !== 201) throw new Error(`create data source: ${created.status} ${JSON.stringify(created.body)}`);
  const rel: string = created.body.servingRelation;
  const servingRows = Number((await pool.query(`SELECT count(*) AS n FROM ${qualified(rel)} WHERE ${LIVE}`)).rows[0].n);
  // The build ends with ANALYZE but leaves hint bits and the visibility map to the first readers; autovacuum
  // would set them soon after a 1M-row insert, possibly in the middle of the timings, so it is done here.
  await pool.query(`VACUUM ANALYZE ${qualified(rel)}`);

  console.log('Load and serving relation');
  console.log(`  COPY into data_store_records  ${fmt.int((records / copyMs) * 1000).padStart(9)} records/s  (${fmt.s(copyMs)}, with the __meta__ row)`);
  console.log(
    `  serving relation built in ${(serviceBuildMs / 1000).toFixed(1)} s  (POST /dashboards/data-sources; ${fmt.int(servingRows)} rows in analytics."${rel}")\n`,
  );
  if (servingRows !== records) console.log(`  WARNING: the serving relation holds ${fmt.int(servingRows)} rows, not ${fmt.int(records)}\n`);
  return { sourceId: created.body.id, rel, copyMs, serviceBuildMs, servingRows };
}
