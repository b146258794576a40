import type { Expression } from './data-sources.schemas';

/** Bounds an expression tree: deep trees would make deep SQL and deep recursion. */
export const MAX_EXPRESSION_NODES = 200;
export const MAX_EXPRESSION_DEPTH = 32;

/** The identifiers an expression names, in order of appearance. */
export function expressionIdentifiers(expr: Expression): string[] {
  if (expr.type === 'Identifier') return [expr.name];
  if (expr.type === 'BinaryExpression') return [...expressionIdentifiers(expr.left), ...expressionIdentifiers(expr.right)];
  return [];
}

/** Why the tree is too big, or null. */
export function expressionSizeProblem(expr: Expression): string | null {
  let nodes = 0;
  let depth = 0;
  const walk = (e: Expression, level: number) => {
    nodes++;
    depth = Math.max(depth, level);
    if (e.type === 'BinaryExpression') {
      walk(e.left, level + 1);
      walk(e.right, level + 1);
    }
  };
  walk(expr, 1);
  if (nodes > MAX_EXPRESSION_NODES) return `has ${nodes} nodes (at most ${MAX_EXPRESSION_NODES})`;
  if (depth > MAX_EXPRESSION_DEPTH) return `is ${depth} levels deep (at most ${MAX_EXPRESSION_DEPTH})`;
  return null;
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
