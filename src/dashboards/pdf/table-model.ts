import { parseColor, styleDeclarations, type TextAlign } from './css-style';
import { deriveAlign, deriveTextStyle } from './element-style';
import { isElement, textContent, type HtmlElement, type HtmlNode } from './html-tree';
import type { TableBlock, TableCell, TextStyle } from './layout-model';
import { normalizeText } from './text-normalize';

/** More columns than this cannot be read on a page; cells past it are left out. */
export const MAX_TABLE_COLUMNS = 64;

/** Inside a cell these start a new line of its text. */
const LINE_TAGS = new Set(['p', 'div', 'li', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'ul', 'ol', 'table', 'section', 'dt', 'dd']);

const hidden = (element: HtmlElement) => element.attrs.hidden !== undefined || /display\s*:\s*none/i.test(element.attrs.style ?? '');

/**
 * A `<table>` as rows of text cells. Header rows are the `<thead>` rows or,
 * without one, a first row made only of `<th>`; they repeat on every page.
 * `<tfoot>` rows come last. A cell is drawn as its text in one style (the
 * style of its first text; `<th>` bold): markup inside a cell other than line
 * breaks degrades to its text, images to their alt text.
 */
export function* tableBlock(table: HtmlElement, style: TextStyle, align: TextAlign): Generator<void, { caption?: string; block: TableBlock }, void> {
  const header: HtmlElement[] = [];
  const body: HtmlElement[] = [];
  const footer: HtmlElement[] = [];
  let caption: string | undefined;
  for (const child of table.children) {
    if (!isElement(child) || hidden(child)) continue;
    if (child.tag === 'caption') caption = cellText(child);
    else if (child.tag === 'tr') body.push(child);
    else if (child.tag === 'thead' || child.tag === 'tbody' || child.tag === 'tfoot') {
      const rows = child.children.filter((row): row is HtmlElement => isElement(row) && row.tag === 'tr' && !hidden(row));
      (child.tag === 'thead' ? header : child.tag === 'tfoot' ? footer : body).push(...rows);
    }
  }
  if (header.length === 0 && body.length > 0) {
    const cells = body[0].children.filter(isElement).filter((cell) => cell.tag === 'td' || cell.tag === 'th');
    if (cells.length > 0 && cells.every((cell) => cell.tag === 'th')) header.push(body.shift()!);
  }
  const tableStyle = deriveTextStyle(table, style);
  // A generator so that a long table can be read a few hundred rows at a time.
  function* rowsOf(rows: HtmlElement[]): Generator<void, TableCell[][], void> {
    const out: TableCell[][] = [];
    for (let i = 0; i < rows.length; i++) {
      const cells = rowCells(rows[i], tableStyle, align);
      if (cells.length > 0) out.push(cells);
      if (i % 200 === 199) yield;
    }
    return out;
  }
  const headerCells = yield* rowsOf(header);
  const bodyCells = yield* rowsOf([...body, ...footer]);
  const span = (cells: TableCell[]) => cells.reduce((sum, cell) => sum + cell.colspan, 0);
  const columns = Math.min(MAX_TABLE_COLUMNS, Math.max(0, ...headerCells.map(span), ...bodyCells.map(span)));
  return {
    caption: caption || undefined,
    block: { kind: 'table', header: headerCells, body: bodyCells, columns, indent: 0, spaceBefore: 0 },
  };
}

function rowCells(row: HtmlElement, style: TextStyle, align: TextAlign): TableCell[] {
  const rowCss = styleDeclarations(row.attrs.style);
  const rowStyle = deriveTextStyle(row, style, rowCss);
  const rowAlign = deriveAlign(row, align, rowCss);
  const background = parseColor(rowCss.get('background-color') ?? rowCss.get('background') ?? row.attrs.bgcolor);
  const cells: TableCell[] = [];
  for (const cell of row.children) {
    if (!isElement(cell) || (cell.tag !== 'td' && cell.tag !== 'th') || hidden(cell)) continue;
    const css = styleDeclarations(cell.attrs.style);
    const colspan = Number.parseInt(cell.attrs.colspan ?? '1', 10);
    cells.push({
      text: cellText(cell),
      style: firstTextStyle(cell, deriveTextStyle(cell, rowStyle, css)),
      align: deriveAlign(cell, rowAlign, css),
      colspan: Number.isFinite(colspan) ? Math.min(MAX_TABLE_COLUMNS, Math.max(1, colspan)) : 1,
      background: parseColor(css.get('background-color') ?? css.get('background') ?? cell.attrs.bgcolor) ?? background,
    });
  }
  return cells;
}

/** The style of the first non-blank text in the cell, so `<td><b>Total</b></td>` is bold. */
function firstTextStyle(cell: HtmlElement, style: TextStyle): TextStyle {
  for (const child of cell.children) {
    if (typeof child === 'string') {
      if (child.trim() !== '') return style;
    } else if (!hidden(child) && textContent(child).trim() !== '') {
      return firstTextStyle(child, deriveTextStyle(child, style));
    }
  }
  return style;
}

/** A cell's text: whitespace collapsed, `<br>` and block elements as line breaks, images as their alt text. */
export function cellText(element: HtmlElement): string {
  let raw = '';
  const walk = (node: HtmlNode) => {
    if (typeof node === 'string') {
      raw += node.replace(/[ \t\n\r\f]+/g, ' ');
      return;
    }
    if (hidden(node) || node.tag === 'svg') return;
    if (node.tag === 'br') raw += '\n';
    else if (node.tag === 'img') raw += node.attrs.alt ?? '';
    else if (node.tag === 'td' || node.tag === 'th') raw += ' ';
    if (LINE_TAGS.has(node.tag)) raw += '\n';
    for (const child of node.children) walk(child);
    if (LINE_TAGS.has(node.tag)) raw += '\n';
  };
  for (const child of element.children) walk(child);
  const lines = raw.split('\n').map((line) => line.replace(/ {2,}/g, ' ').trim());
  return normalizeText(lines.filter((line) => line !== '').join('\n'));
}
