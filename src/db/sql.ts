import type { Expression } from '../data-sources/data-sources.schemas';

/**
 * SQL text helpers shared by the repositories, the CSV export and the Cube
 * model: the one low place they all import from, so no domain reaches into
 * another (or into cube/) for quoting.
 */

export const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The schema that holds every data source's serving relation. */
export const SERVING_SCHEMA = 'analytics';

/** A serving relation's name, schema-qualified and quoted. */
export const qualified = (relation: string) => `${SERVING_SCHEMA}.${ident(relation)}`;

/** Rows that are live (not expired): every read of a serving relation filters with this. */
export const LIVE = '(__expires_at IS NULL OR __expires_at > now())';

/**
 * Replaces `$1`, `$2`, … in SQL that Cube generated with quoted literals, for
 * statements that take no bind parameters (COPY). Placeholders inside quoted
 * strings and identifiers are left alone. `quote` must produce a safe
 * literal (pg's escapeLiteral).
 */
export function inlineParams(sql: string, params: unknown[], quote: (text: string) => string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === "'" || ch === '"') {
      // Copy the quoted run whole; a doubled quote inside is an escaped one.
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new Error('Unterminated quote in generated SQL');
        if (sql[j] === ch) {
          if (sql[j + 1] === ch) j += 2;
          else break;
        } else j++;
      }
      out += sql.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (ch === '$' && /\d/.test(sql[i + 1] ?? '') && !/[\w$]/.test(sql[i - 1] ?? '')) {
      let j = i + 1;
      while (/\d/.test(sql[j] ?? '')) j++;
      const index = Number(sql.slice(i + 1, j)) - 1;
      if (!(index in params)) throw new Error(`Generated SQL names parameter $${index + 1}, which is missing`);
      const value = params[index];
      out += value === null || value === undefined ? 'NULL' : quote(String(value));
      i = j;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}

/**
 * The expression as SQL over numeric columns. Arithmetic follows SQL: any
 * null operand makes the result null, and a division or remainder by zero is
 * null too (not an error), so one bad row never fails a whole query.
 */
export function expressionSql(expr: Expression, column: (name: string) => string): string {
  switch (expr.type) {
    case 'Identifier':
      return column(expr.name);
    case 'Literal':
      // A finite JSON number; quoted so exponents such as 1e+21 parse as numeric.
      return `'${String(expr.value)}'::numeric`;
    case 'BinaryExpression': {
      const left = expressionSql(expr.left, column);
      const right = expressionSql(expr.right, column);
      if (expr.operator === '/' || expr.operator === '%') return `(${left} ${expr.operator} NULLIF(${right}, 0))`;
      return `(${left} ${expr.operator} ${right})`;
    }
  }
}
