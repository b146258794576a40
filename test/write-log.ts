import type { DataSource } from 'typeorm';

/** One row written to a watched table: its operation, the row (after; before for a delete), the columns an update changed. */
export interface LoggedWrite {
  table: string;
  op: 'INSERT' | 'UPDATE' | 'DELETE';
  row: Record<string, unknown>;
  changed: string[];
}

/**
 * Triggers that record every row written to the given tables, in a log table
 * of the same database: what a refused request wrote is read back in one
 * indexed query rather than by digesting every table before and after it.
 * A rolled-back write leaves no line (the log is written in its transaction),
 * and an update that changes nothing leaves none either. Only for a file's
 * own database (startHarness({ isolatedDatabase: true })): the triggers slow
 * every write.
 */
export async function installWriteLog(db: DataSource, tables: string[]) {
  await db.query(
    `CREATE TABLE test_write_log (id bigserial PRIMARY KEY, table_name text NOT NULL, op text NOT NULL, row jsonb NOT NULL, changed text[] NOT NULL)`,
  );
  await db.query(`
    CREATE FUNCTION test_log_write() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      before jsonb := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE to_jsonb(OLD) END;
      after jsonb := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE to_jsonb(NEW) END;
      changed text[] := '{}';
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        SELECT coalesce(array_agg(k), '{}') INTO changed FROM jsonb_object_keys(after) AS k WHERE after -> k IS DISTINCT FROM before -> k;
        IF cardinality(changed) = 0 THEN RETURN NULL; END IF;
      END IF;
      INSERT INTO test_write_log (table_name, op, row, changed) VALUES (TG_TABLE_NAME, TG_OP, coalesce(after, before), changed);
      RETURN NULL;
    END $$`);
  for (const table of tables) {
    await db.query(`CREATE TRIGGER test_log_write AFTER INSERT OR UPDATE OR DELETE ON "${table}" FOR EACH ROW EXECUTE FUNCTION test_log_write()`);
  }
  return {
    /** Where the log stands now: pass it to `since`. */
    async mark(): Promise<number> {
      const [{ id }] = await db.query(`SELECT coalesce(max(id), 0)::int AS id FROM test_write_log`);
      return id as number;
    },
    /** The writes committed after `mark`, in order. */
    async since(mark: number): Promise<LoggedWrite[]> {
      const rows: Array<{ table_name: string; op: LoggedWrite['op']; row: Record<string, unknown>; changed: string[] }> = await db.query(
        `SELECT table_name, op, row, changed FROM test_write_log WHERE id > $1 ORDER BY id`,
        [mark],
      );
      return rows.map((r) => ({ table: r.table_name, op: r.op, row: r.row, changed: r.changed }));
    },
  };
}
