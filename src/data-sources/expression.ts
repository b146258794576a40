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
