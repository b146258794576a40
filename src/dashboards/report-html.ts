import { setImmediate as nextTurn } from 'node:timers/promises';
import { GRID_COLUMNS } from './chart-types';
import { type ChartWidget, type WidgetView } from './charts';
import { chartDrawCost, chartSvg } from './charts/svg-render';
import type { LayoutItem } from './dashboards.schemas';

/** Width of the report's grid in SVG units (A4 landscape's text width is about 760 pt: scaled to fit). */
const GRID_WIDTH = 1200;
/** Height of one grid row, in the same units. */
const ROW_HEIGHT = 70;
const TITLE_HEIGHT = 26;
const GAP = 8;
/** Rows of a table widget printed; the rest are counted under it. */
export const REPORT_TABLE_ROWS = 200;
/**
 * A chart whose chartDrawCost is over this is not drawn (its tile says so):
 * about a quarter of a second of ECharts on the event loop (about 5,000 bar
 * points, 500 pie slices or 240 one-point series).
 */
export const MAX_CHART_POINTS = 5_000;
/**
 * A drawn chart with more SVG elements than this is not printed either: a
 * second net under MAX_CHART_POINTS (which keeps the charts ECharts draws
 * today to about 6,000), for the renderer's per-SVG bound of 20,000.
 */
const MAX_CHART_ELEMENTS = 15_000;
const TOO_MANY_POINTS = 'Too many points to print this chart';

/** Draws a chart view to SVG: chartSvg, or a stand-in in tests. */
export type ChartDrawer = (option: Extract<WidgetView, { kind: 'chart' }>['option'], size: { width: number; height: number }) => string;

/** A text tile's Markdown, already rendered to safe HTML (charts/markdown.ts). */
export interface TextView {
  kind: 'text';
  html: string;
}

export interface ReportTile {
  item: LayoutItem;
  widget: Pick<ChartWidget, 'title'>;
  view: WidgetView | TextView;
}

export interface ReportHeader {
  title: string;
  timeZone: string;
  generatedAt: string;
  filters: Array<{ label: string; values: string[] }>;
}

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The report as HTML for the PDF renderer: a header (title, filters, zone,
 * time of generation), then the dashboard's grid band by band (widgets whose
 * rows overlap share a band), top to bottom. In a band, stat cards are one
 * row of KPI cells, charts (and the message of an empty or failed widget)
 * one SVG with each tile at its grid column and width, and table widgets
 * and text tiles (their rendered Markdown, under their title) follow.
 */
export async function reportHtml(header: ReportHeader, tiles: ReportTile[], draw: ChartDrawer = chartSvg): Promise<string> {
  const parts = [
    `<h1>${escape(header.title)}</h1>`,
    `<p>Time zone: <b>${escape(header.timeZone)}</b> · Generated: ${escape(header.generatedAt)}</p>`,
    header.filters.length > 0
      ? `<p>Filters: ${header.filters.map((f) => `${escape(f.label)}: <b>${f.values.length > 0 ? escape(f.values.join(', ')) : 'all'}</b>`).join(' · ')}</p>`
      : '',
  ];
  for (const band of bands(tiles)) {
    const stats = band.filter((t) => t.view.kind === 'stat');
    const flowing = band.filter((t) => t.view.kind === 'table' || t.view.kind === 'text');
    const drawn = band.filter((t): t is ReportTile & { view: WidgetView } => t.view.kind !== 'stat' && t.view.kind !== 'table' && t.view.kind !== 'text');
    if (stats.length > 0) parts.push(statRow(stats));
    if (drawn.length > 0) parts.push(await bandSvg(drawn, draw));
    for (const t of flowing) parts.push(t.view.kind === 'text' ? textHtml(t.widget.title, t.view) : tableHtml(t));
  }
  return `<!doctype html><html><body>${parts.join('\n')}</body></html>`;
}

/** Tiles grouped into bands of overlapping grid rows, in grid order (top, then left). */
function bands(tiles: ReportTile[]): ReportTile[][] {
  const sorted = [...tiles].sort((a, b) => a.item.y - b.item.y || a.item.x - b.item.x);
  const out: ReportTile[][] = [];
  let end = -1;
  for (const t of sorted) {
    if (t.item.y >= end) out.push([]);
    out[out.length - 1].push(t);
    end = Math.max(end, t.item.y + t.item.h);
  }
  return out;
}

function statRow(tiles: ReportTile[]): string {
  const cells = tiles.map((t) => {
    const view = t.view as Extract<WidgetView, { kind: 'stat' }>;
    const label = view.label === t.widget.title ? '' : ` · ${escape(view.label)}`;
    return `<td><span style="font-size:9pt;color:#555555">${escape(t.widget.title)}${label}</span><br><b style="font-size:22pt">${escape(view.text)}</b></td>`;
  });
  return `<table><tr>${cells.join('')}</tr></table>`;
}

/** The Markdown's HTML is markdown-it's with raw HTML off (charts/markdown.ts): no tag of the author's own reaches the page. */
function textHtml(title: string, view: TextView): string {
  return `<h3>${escape(title)}</h3><div>${view.html}</div>`;
}

function tableHtml(t: ReportTile): string {
  const view = t.view as Extract<WidgetView, { kind: 'table' }>;
  const style = (align: string) => (align === 'right' ? ' style="text-align:right"' : '');
  const head = view.columns.map((c) => `<th${style(c.align)}>${escape(c.label)}</th>`).join('');
  const rows = view.rows
    .slice(0, REPORT_TABLE_ROWS)
    .map((row) => `<tr>${row.map((cell, i) => `<td${style(view.columns[i].align)}>${escape(cell)}</td>`).join('')}</tr>`)
    .join('');
  const more = view.rows.length > REPORT_TABLE_ROWS ? `<p>… and ${view.rows.length - REPORT_TABLE_ROWS} more rows</p>` : '';
  return `<h3>${escape(t.widget.title)}</h3><table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table>${more}`;
}

/** The band's charts and messages in one SVG, each tile at its columns, titled, boxed. */
async function bandSvg(tiles: Array<ReportTile & { view: WidgetView }>, draw: ChartDrawer): Promise<string> {
  const top = Math.min(...tiles.map((t) => t.item.y));
  const height = Math.max(...tiles.map((t) => t.item.y + t.item.h)) - top;
  const column = GRID_WIDTH / GRID_COLUMNS;
  const totalHeight = height * ROW_HEIGHT;
  const body: string[] = [];
  for (const [i, t] of tiles.entries()) {
    const x = t.item.x * column + GAP / 2;
    const y = (t.item.y - top) * ROW_HEIGHT + GAP / 2;
    const w = t.item.w * column - GAP;
    const h = t.item.h * ROW_HEIGHT - GAP;
    const frame = `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="none" stroke="#cccccc"/><text x="${x + 8}" y="${y + 18}" style="font-size:14px;font-weight:bold" fill="#222222">${escape(t.widget.title)}</text>`;
    body.push(frame + (await tileBody(t.view, i, { x: x + 4, y: y + TITLE_HEIGHT, w: w - 8, h: h - TITLE_HEIGHT - 4 }, draw)));
  }
  return `<svg width="${GRID_WIDTH}" height="${totalHeight}" viewBox="0 0 ${GRID_WIDTH} ${totalHeight}" xmlns="http://www.w3.org/2000/svg">${body.join('')}</svg>`;
}

async function tileBody(view: WidgetView, index: number, box: { x: number; y: number; w: number; h: number }, draw: ChartDrawer): Promise<string> {
  if (view.kind === 'chart' && box.w > 20 && box.h > 20) {
    // Refused from the option alone: drawing it first would spend the time the bound is there to save.
    if (chartDrawCost(view.option) > MAX_CHART_POINTS) return message(TOO_MANY_POINTS, box, '#555555');
    // Each chart is drawn in a turn of its own: a report's charts do not hold the event loop all at once.
    await nextTurn();
    // Ids (ECharts' clip paths) made unique per tile: the SVG's ids are looked up across the whole band.
    const svg = draw(view.option, { width: Math.round(box.w), height: Math.round(box.h) }).replace(/\bzr\d+-/g, `t${index}-`);
    if ((svg.match(/<[a-zA-Z]/g)?.length ?? 0) > MAX_CHART_ELEMENTS) return message(TOO_MANY_POINTS, box, '#555555');
    return svg.replace(/^<svg /, `<svg x="${box.x}" y="${box.y}" `);
  }
  if (view.kind === 'error') return message(`Error: ${view.message}`, box, '#b00020');
  if (view.kind === 'empty') return message(view.message, box, '#555555');
  return '';
}

/** A message in a tile, wrapped at about the tile's width (SVG text does not wrap on its own). */
function message(text: string, box: { x: number; y: number; w: number; h: number }, color: string): string {
  const perLine = Math.max(10, Math.floor(box.w / 7));
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + word.length + 1 > perLine) {
      lines.push(line);
      line = '';
    }
    line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  const shown = lines.slice(0, Math.max(1, Math.floor(box.h / 16)));
  return shown.map((l, i) => `<text x="${box.x + 4}" y="${box.y + 14 + i * 16}" style="font-size:12px" fill="${color}">${escape(l)}</text>`).join('');
}
