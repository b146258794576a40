import type { Expression } from './data-types';

/**
 * Parses the formula a person types (`amount * 1.2`, `(price - cost) / price`)
 * into the expression tree the API takes. Arithmetic only: + - * / %,
 * parentheses, numbers and field names; a leading minus becomes `0 - x`.
 * Throws an Error saying where the text stops making sense.
 */
export function parseFormula(text: string): Expression {
  const tokens = tokenize(text);
  let i = 0;
  const peek = () => tokens[i];
  const describe = (t: Token | undefined) => (t ? `"${t.text}" at ${t.at + 1}` : 'the end');

  function primary(): Expression {
    const t = tokens[i++];
    if (!t) throw new Error('The formula ends too early: a field name or a number is missing');
    if (t.kind === 'number') return { type: 'Literal', value: Number(t.text), raw: t.text };
    if (t.kind === 'name') return { type: 'Identifier', name: t.text };
    if (t.text === '(') {
      const inner = sum();
      if (peek()?.text !== ')') throw new Error(`Expected ")" but found ${describe(peek())}`);
      i++;
      return inner;
    }
    if (t.text === '-') {
      const operand = primary();
      if (operand.type === 'Literal') return { type: 'Literal', value: -operand.value, raw: `-${operand.raw ?? operand.value}` };
      return { type: 'BinaryExpression', operator: '-', left: { type: 'Literal', value: 0, raw: '0' }, right: operand };
    }
    throw new Error(`Unexpected ${describe(t)}`);
  }

  function product(): Expression {
    let left = primary();
    while (peek() && ['*', '/', '%'].includes(peek()!.text)) {
      const operator = tokens[i++].text as '*' | '/' | '%';
      left = { type: 'BinaryExpression', operator, left, right: primary() };
    }
    return left;
  }

  function sum(): Expression {
    let left = product();
    while (peek() && ['+', '-'].includes(peek()!.text)) {
      const operator = tokens[i++].text as '+' | '-';
      left = { type: 'BinaryExpression', operator, left, right: product() };
    }
    return left;
  }

  if (tokens.length === 0) throw new Error('Write a formula, e.g. amount * 2');
  const tree = sum();
  if (i < tokens.length) throw new Error(`Unexpected ${describe(tokens[i])}`);
  return tree;
}

interface Token {
  kind: 'number' | 'name' | 'symbol';
  text: string;
  at: number;
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s*(?:(\d+(?:\.\d+)?|\.\d+)|([A-Za-z_][A-Za-z0-9_]*)|([-+*/%()]))/y;
  let at = 0;
  while (at < text.length) {
    if (/^\s*$/.test(text.slice(at))) break;
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (!match) throw new Error(`Unexpected "${text.slice(at).trim()[0]}" at ${at + 1 + (text.slice(at).length - text.slice(at).trimStart().length)}`);
    const start = at + match[0].length - (match[1] ?? match[2] ?? match[3]).length;
    if (match[1]) tokens.push({ kind: 'number', text: match[1], at: start });
    else if (match[2]) tokens.push({ kind: 'name', text: match[2], at: start });
    else tokens.push({ kind: 'symbol', text: match[3], at: start });
    at = pattern.lastIndex;
  }
  return tokens;
}
