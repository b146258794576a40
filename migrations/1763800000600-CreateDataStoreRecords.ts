import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * One table holds every organization's data store records. `table_name` and
 * `key` use the "C" collation: keys sort bytewise (code point order), and a
 * key-prefix read becomes a range scan of the unique index.
 */
export class CreateDataStoreRecords1763800000600 implements MigrationInterface {
  name = 'CreateDataStoreRecords1763800000600';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE data_store_records (
        id uuid PRIMARY KEY,
        suid text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        table_name text COLLATE "C" NOT NULL,
        key text COLLATE "C" NOT NULL,
        value jsonb NOT NULL,
        expires_at timestamptz,
        record_timestamp timestamptz NOT NULL DEFAULT now(),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT data_store_records_value_object CHECK (jsonb_typeof(value) = 'object'),
        CONSTRAINT data_store_records_table_key UNIQUE (organization_id, table_name, key)
      )`);
    // The table registry: one __meta__ row per table, found without walking the records.
    await q.query(`
      CREATE INDEX data_store_records_tables ON data_store_records (organization_id, table_name)
      WHERE key = '__meta__'`);
    // The background purge finds expired rows through this index.
    await q.query(`
      CREATE INDEX data_store_records_expiry ON data_store_records (expires_at)
      WHERE expires_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE data_store_records`);
  }
}
