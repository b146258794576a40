import { parseColor, styleDeclarations, type TextAlign } from './css-style';
import { deriveAlign, deriveTextStyle } from './element-style';
import { isElement, type HtmlElement, type HtmlNode } from './html-tree';
import type { Run, TableBlock, TableCell, TextStyle } from './layout-model';
import { normalizeText } from './text-normalize';

/** More columns than this cannot be read on a page; cells past it are left out. */
export const MAX_TABLE_COLUMNS = 64;

/** Inside a cell these start a new line of its text. */
const LINE_TAGS = new Set(['p', 'div', 'li', 'tr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'blockquote', 'ul', 'ol', 'table', 'section', 'dt', 'dd']);

const hidden = (element: HtmlElement) => element.attrs.hidden !== undefined || /display\s*:\s*none/i.test(element.attrs.style ?? '');

/**
 * A `<table>` as rows of text cells. Header rows are the `<thead>` rows or,
 * without one, a first row made only of `<th>`; they repeat on every page.
 * `<tfoot>` rows come last. A cell is its text as runs in their inline
 * styles, derived as a paragraph's are (`deriveTextStyle`: `<th>` bold, a
 * `<b style="font-size:28pt">` inside it large); `<br>` and block elements
 * inside it break lines, images degrade to their alt text.
 */
export function* tableBlock(table: HtmlElement, style: TextStyle, align: TextAlign): Generator<void, { caption?: string; block: TableBlock }, void> {
  const header: HtmlElement[] = [];
  const body: HtmlElement[] = [];
  const footer: HtmlElement[] = [];
  let caption: string | undefined;
  for (const child of table.children) {
    if (!isElement(child) || hidden(child)) continue;
    if (child.tag === 'caption')
      caption = cellRuns(child, style)
        .map((run) => run.text)
        .join('');
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
    const cellStyle = deriveTextStyle(cell, rowStyle, css);
    cells.push({
      runs: cellRuns(cell, cellStyle),
      style: cellStyle,
      align: deriveAlign(cell, rowAlign, css),
      colspan: Number.isFinite(colspan) ? Math.min(MAX_TABLE_COLUMNS, Math.max(1, colspan)) : 1,
      background: parseColor(css.get('background-color') ?? css.get('background') ?? cell.attrs.bgcolor) ?? background,
    });
  }
  return cells;
}

/**
 * A cell's text as runs, each in the style its elements give it (the same
 * derivation as a paragraph's runs): whitespace collapsed across runs, `<br>`
 * and block elements as line breaks, blank lines dropped, images as their
 * alt text.
 */
export function cellRuns(element: HtmlElement, style: TextStyle): Run[] {
  const lines: Run[][] = [[]];
  const add = (text: string, at: TextStyle) => {
    const line = lines[lines.length - 1];
    const last = line[line.length - 1];
    if (last && last.style === at) last.text += text;
    else line.push({ text, style: at });
  };
  const newLine = () => lines.push([]);
  const walk = (node: HtmlNode, at: TextStyle) => {
    if (typeof node === 'string') return add(node.replace(/[ \t\n\r\f]+/g, ' '), at);
    if (hidden(node) || node.tag === 'svg') return;
    const inner = deriveTextStyle(node, at);
    if (node.tag === 'br') newLine();
    else if (node.tag === 'img') add(node.attrs.alt ?? '', inner);
    else if (node.tag === 'td' || node.tag === 'th') add(' ', inner);
    if (LINE_TAGS.has(node.tag)) newLine();
    for (const child of node.children) walk(child, inner);
    if (LINE_TAGS.has(node.tag)) newLine();
  };
  for (const child of element.children) walk(child, style);
  const runs: Run[] = [];
  for (const line of lines) {
    // Spaces collapse across runs; none at either end of a line.
    const kept: Run[] = [];
    let spaceBefore = true;
    for (const run of line) {
      let text = run.text.replace(/ {2,}/g, ' ');
      if (spaceBefore && text.startsWith(' ')) text = text.slice(1);
      if (!text) continue;
      kept.push({ text: normalizeText(text), style: run.style });
      spaceBefore = text.endsWith(' ');
    }
    while (kept.length > 0) {
      const last = kept[kept.length - 1];
      last.text = last.text.replace(/ +$/, '');
      if (last.text) break;
      kept.pop();
    }
    if (kept.length === 0) continue;
    if (runs.length > 0) runs[runs.length - 1].text += '\n';
    runs.push(...kept);
  }
  return runs;
}
