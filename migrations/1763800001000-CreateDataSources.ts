import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Data sources and their serving relations. A source's serving relation is a
 * typed table in the `analytics` schema (one column per record field), kept
 * in step with `data_store_records` by statement-level triggers in the same
 * transaction as the write, so a committed record is already queryable.
 *
 * Writers take a shared advisory lock per (organization, table) they touch;
 * building or rebuilding a serving relation takes it exclusively, so no write
 * can slip between a rebuild's snapshot and its commit.
 */
export class CreateDataSources1763800001000 implements MigrationInterface {
  name = 'CreateDataSources1763800001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE SCHEMA analytics`);
    await q.query(`
      CREATE TABLE data_sources (
        id uuid PRIMARY KEY,
        suid text NOT NULL UNIQUE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id uuid,
        name text NOT NULL,
        type text NOT NULL,
        connection_id uuid,
        connection_name text,
        data_store_table_name text COLLATE "C" NOT NULL,
        shared_from_organization_id uuid,
        table_organization_id uuid NOT NULL,
        record_schema jsonb NOT NULL,
        window_dimensions jsonb NOT NULL DEFAULT '[]',
        sync_config jsonb,
        enabled boolean NOT NULL DEFAULT true,
        serving_engine text NOT NULL,
        serving_relation text NOT NULL UNIQUE,
        hot_path_mode text NOT NULL,
        sync_statement text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX data_sources_org_created ON data_sources (organization_id, created_at DESC)`);
    // The triggers find the sources of a written table through this index.
    await q.query(`CREATE INDEX data_sources_table ON data_sources (table_organization_id, data_store_table_name) WHERE enabled`);

    // Not the data stores' own table lock (imports hold that one for their whole run): this one writers only share.
    await q.query(`
      CREATE FUNCTION analytics.table_lock_key(organization uuid, table_name text) RETURNS bigint
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT hashtextextended('analytics:' || organization::text || '/' || table_name, 0) $$`);

    // Conversions never fail: a value that does not fit its field's type is stored as NULL, so one odd record cannot block a write.
    await q.query(`
      CREATE FUNCTION analytics.to_number(v jsonb) RETURNS numeric
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE jsonb_typeof(v)
          WHEN 'number' THEN (v #>> '{}')::numeric
          WHEN 'string' THEN CASE WHEN (v #>> '{}') ~ '^\\s*[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]{1,3})?\\s*$'
                                  THEN trim(v #>> '{}')::numeric END
        END $$`);
    await q.query(`
      CREATE FUNCTION analytics.to_text(v jsonb) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE jsonb_typeof(v) WHEN 'string' THEN v #>> '{}' WHEN 'null' THEN NULL ELSE v::text END $$`);
    // ISO 8601 dates and date-times (no offset means UTC), or epoch milliseconds; nested CASEs keep the order of the checks.
    await q.query(`
      CREATE FUNCTION analytics.to_time(v jsonb) RETURNS timestamptz
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE jsonb_typeof(v)
          WHEN 'number' THEN CASE WHEN (v #>> '{}')::float8 BETWEEN -62135596800000 AND 253402300799999
                                  THEN to_timestamp((v #>> '{}')::float8 / 1000) END
          WHEN 'string' THEN CASE
            WHEN (v #>> '{}') !~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?)?(Z|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)?$' THEN NULL
            WHEN substr(v #>> '{}', 1, 4) = '0000' THEN NULL
            WHEN substr(v #>> '{}', 9, 2)::int > extract(day FROM make_date(substr(v #>> '{}', 1, 4)::int, substr(v #>> '{}', 6, 2)::int, 1) + interval '1 month - 1 day') THEN NULL
            WHEN (v #>> '{}') ~ '(Z|[+-][0-9]{2}(:?[0-9]{2})?)$' AND length(v #>> '{}') > 10 THEN (v #>> '{}')::timestamptz
            ELSE (v #>> '{}')::timestamp AT TIME ZONE 'UTC'
          END
        END $$`);

    // The two branches differ only in the transition table they read; PL/pgSQL names it statically, and
    // static SQL keeps its cached plans on this path of every write (dynamic SQL would be planned each time).
    await q.query(`
      CREATE FUNCTION analytics.sync_serving() RETURNS trigger
      LANGUAGE plpgsql AS $$
      DECLARE
        d record;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          PERFORM pg_advisory_xact_lock_shared(analytics.table_lock_key(t.organization_id, t.table_name))
            FROM (SELECT DISTINCT organization_id, table_name FROM old_rows) t;
          FOR d IN
            SELECT s.serving_relation, s.table_organization_id, s.data_store_table_name
            FROM data_sources s
            JOIN (SELECT DISTINCT organization_id, table_name FROM old_rows) t
              ON s.table_organization_id = t.organization_id AND s.data_store_table_name = t.table_name
            WHERE s.enabled
          LOOP
            EXECUTE format('DELETE FROM analytics.%I s USING old_rows o WHERE o.organization_id = $1 AND o.table_name = $2 AND s.__key = o.key', d.serving_relation)
              USING d.table_organization_id, d.data_store_table_name;
          END LOOP;
        ELSE
          PERFORM pg_advisory_xact_lock_shared(analytics.table_lock_key(t.organization_id, t.table_name))
            FROM (SELECT DISTINCT organization_id, table_name FROM new_rows) t;
          FOR d IN
            SELECT s.sync_statement, s.table_organization_id, s.data_store_table_name
            FROM data_sources s
            JOIN (SELECT DISTINCT organization_id, table_name FROM new_rows) t
              ON s.table_organization_id = t.organization_id AND s.data_store_table_name = t.table_name
            WHERE s.enabled
          LOOP
            EXECUTE d.sync_statement USING d.table_organization_id, d.data_store_table_name;
          END LOOP;
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER data_store_records_serving_insert AFTER INSERT ON data_store_records
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.sync_serving()`);
    await q.query(`
      CREATE TRIGGER data_store_records_serving_update AFTER UPDATE ON data_store_records
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.sync_serving()`);
    await q.query(`
      CREATE TRIGGER data_store_records_serving_delete AFTER DELETE ON data_store_records
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION analytics.sync_serving()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER data_store_records_serving_delete ON data_store_records`);
    await q.query(`DROP TRIGGER data_store_records_serving_update ON data_store_records`);
    await q.query(`DROP TRIGGER data_store_records_serving_insert ON data_store_records`);
    await q.query(`DROP TABLE data_sources`);
    await q.query(`DROP SCHEMA analytics CASCADE`);
  }
}
