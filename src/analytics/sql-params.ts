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
