import { pageBreaks, parseLength, styleDeclarations, type TextAlign } from './css-style';
import { BASE_STYLE, HEADINGS, deriveAlign, deriveTextStyle } from './element-style';
import { isElement, type HtmlElement, type HtmlNode } from './html-tree';
import type { Block, Run, TextStyle } from './layout-model';
import { PdfInputTooLarge } from './pdf-errors';
import type { PdfLimits } from './pdf-limits';
import { svgSize } from './svg-size';
import { tableBlock } from './table-model';
import { normalizeText } from './text-normalize';

/** An `<img>` met while building; `resolveImages` turns it into an image block or its alt text. */
export interface ImageRequest {
  kind: 'image-request';
  src: string;
  alt: string;
  /** Width and height from the attributes or style, in points, when given. */
  width?: number;
  height?: number;
  indent: number;
  spaceBefore: number;
  align: TextAlign;
  style: TextStyle;
}

export type BuiltBlock = Block | ImageRequest;

interface Context {
  style: TextStyle;
  align: TextAlign;
  indent: number;
  pre: boolean;
  listDepth: number;
}

/** Tags laid out as blocks, with their margins in points (above, below); the rest are inline. */
const BLOCK_MARGINS: Record<string, [number, number]> = {
  p: [4, 6],
  div: [0, 0],
  section: [0, 0],
  article: [0, 0],
  main: [0, 0],
  header: [0, 4],
  footer: [4, 0],
  aside: [0, 0],
  nav: [0, 0],
  body: [0, 0],
  html: [0, 0],
  address: [4, 6],
  blockquote: [6, 6],
  pre: [6, 6],
  figure: [6, 6],
  figcaption: [2, 4],
  details: [0, 0],
  summary: [0, 0],
  dialog: [0, 0],
  fieldset: [4, 6],
  form: [0, 0],
  hgroup: [0, 0],
  legend: [0, 2],
  dl: [4, 6],
  dt: [2, 0],
  dd: [0, 2],
  li: [0, 2],
  caption: [0, 4],
  center: [0, 0],
  ...Object.fromEntries(Object.entries(HEADINGS).map(([tag, { margins }]) => [tag, margins])),
};
const INDENTED = new Map([
  ['blockquote', 20],
  ['dd', 20],
  ['figure', 10],
]);
const LIST_INDENT = 18;
/** The builder checks the clock every this many elements, and gives the event loop a turn every SLICE_MS. */
const YIELD_EVERY = 200;
const SLICE_MS = 15;
/** Disc, circle and square, as a browser draws them: by nesting depth, or by list-style-type. */
const BULLETS = ['\u2022', '\u25e6', '\u25aa'];

/**
 * Turns the parsed HTML into the flat list of blocks the page writer draws:
 * paragraphs of styled runs (headings, list items with their markers),
 * tables, charts, images, rules and page breaks. Inline content between
 * blocks becomes a paragraph of its own, as a browser's anonymous block does.
 * Anything it does not know it walks into, so its text still shows.
 */
export class BlockBuilder {
  readonly blocks: BuiltBlock[] = [];
  private runs: Run[] = [];
  private owner: Context;
  private pendingSpace = 0;
  private pendingMarker: Run | undefined;
  private breaks = 0;
  private visited = 0;

  constructor(
    private readonly contentWidth: number,
    private readonly limits: PdfLimits,
  ) {
    this.owner = { style: BASE_STYLE, align: 'left', indent: 0, pre: false, listDepth: 0 };
  }

  /** Walks the tree in slices of a few milliseconds, so a large document does not hold the event loop. */
  async build(root: HtmlElement): Promise<BuiltBlock[]> {
    let sliceStart = performance.now();
    for (const _ of this.walkRoot(root)) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
    return this.blocks;
  }

  private *walkRoot(root: HtmlElement): Generator<void, void, void> {
    for (const child of root.children) yield* this.walk(child, this.owner);
    this.flush();
  }

  private *walk(node: HtmlNode, ctx: Context): Generator<void, void, void> {
    if (!isElement(node)) return this.addText(node, ctx);
    if (++this.visited % YIELD_EVERY === 0) yield;
    const css = styleDeclarations(node.attrs.style);
    if ((css.get('display') ?? '').toLowerCase() === 'none' || node.attrs.hidden !== undefined) return;
    const inner: Context = { ...ctx, style: deriveTextStyle(node, ctx.style, css), align: deriveAlign(node, ctx.align, css) };
    const { before, after } = pageBreaks(css);
    if (before) this.pageBreak();
    yield* this.element(node, inner, css);
    if (after) this.pageBreak();
  }

  private *element(node: HtmlElement, ctx: Context, css: Map<string, string>): Generator<void, void, void> {
    switch (node.tag) {
      case 'br':
        return this.push('\n', ctx.style);
      case 'img':
        return this.image(node, ctx, css);
      case 'svg':
        return this.svg(node, ctx, css);
      case 'table':
        return yield* this.table(node, ctx);
      case 'hr':
        this.flush();
        this.emit({ kind: 'rule', indent: ctx.indent, spaceBefore: 0 }, 6, 6);
        return;
      case 'ul':
      case 'ol':
        return yield* this.list(node, ctx, css);
    }
    const margins = BLOCK_MARGINS[node.tag];
    if (!margins) {
      for (const child of node.children) yield* this.walk(child, ctx);
      return;
    }
    this.flush();
    const block: Context = { ...ctx, indent: ctx.indent + (INDENTED.get(node.tag) ?? 0), pre: ctx.pre || node.tag === 'pre' };
    const saved = this.owner;
    this.owner = block;
    this.pendingSpace = Math.max(this.pendingSpace, margins[0]);
    if (node.tag === 'li' && ctx.listDepth === 0) this.pendingMarker = { text: BULLETS[0], style: ctx.style };
    if (node.tag === 'li' && ctx.listDepth === 0) block.indent += LIST_INDENT;
    for (const child of node.children) yield* this.walk(child, block);
    this.flush(Object.hasOwn(HEADINGS, node.tag));
    this.owner = saved;
    this.pendingSpace = Math.max(this.pendingSpace, margins[1]);
  }

  private *list(node: HtmlElement, ctx: Context, css: Map<string, string>): Generator<void, void, void> {
    this.flush();
    const ordered = node.tag === 'ol';
    const type = (css.get('list-style-type') ?? node.attrs.type ?? '').trim();
    let n = Number.parseInt(node.attrs.start ?? '1', 10);
    if (!Number.isFinite(n)) n = 1;
    const nested = ctx.listDepth > 0;
    this.pendingSpace = Math.max(this.pendingSpace, nested ? 0 : 4);
    const inner: Context = { ...ctx, indent: ctx.indent + LIST_INDENT, listDepth: ctx.listDepth + 1 };
    for (const child of node.children) {
      if (isElement(child) && child.tag === 'li') {
        const value = Number.parseInt(child.attrs.value ?? '', 10);
        if (Number.isFinite(value)) n = value;
        const marker = ordered ? listNumber(n, type) : listBullet(ctx.listDepth, type);
        n++;
        this.flush();
        this.pendingMarker = marker === undefined ? undefined : { text: marker, style: { ...ctx.style, bold: false, italic: false } };
        const saved = this.owner;
        this.owner = inner;
        yield* this.walkListItem(child, inner);
        this.owner = saved;
      } else {
        yield* this.walk(child, inner);
      }
    }
    this.flush();
    this.pendingSpace = Math.max(this.pendingSpace, nested ? 0 : 6);
  }

  private *walkListItem(item: HtmlElement, ctx: Context): Generator<void, void, void> {
    const css = styleDeclarations(item.attrs.style);
    if ((css.get('display') ?? '').toLowerCase() === 'none') {
      this.pendingMarker = undefined;
      return;
    }
    const inner: Context = { ...ctx, style: deriveTextStyle(item, ctx.style, css), align: deriveAlign(item, ctx.align, css) };
    for (const child of item.children) yield* this.walk(child, inner);
    // An empty item still shows its marker.
    if (this.pendingMarker && this.runs.length === 0) this.emitText([], inner, false);
    this.flush();
    this.pendingSpace = Math.max(this.pendingSpace, 2);
  }

  private *table(node: HtmlElement, ctx: Context): Generator<void, void, void> {
    this.flush();
    const { caption, block } = yield* tableBlock(node, ctx.style, ctx.align);
    if (caption) {
      this.pendingSpace = Math.max(this.pendingSpace, 8);
      this.emitText([{ text: normalizeText(caption), style: { ...ctx.style, bold: true } }], { ...ctx, align: 'center' }, true);
    }
    if (block.header.length + block.body.length === 0) return;
    this.emit({ ...block, indent: ctx.indent }, caption ? 2 : 8, 10);
  }

  private svg(node: HtmlElement, ctx: Context, css: Map<string, string>): void {
    this.flush();
    const { width, height } = svgSize(node, css, this.contentWidth - ctx.indent);
    this.emit({ kind: 'svg', element: node, width, height, align: ctx.align, indent: ctx.indent, spaceBefore: 0 }, 4, 6);
  }

  private image(node: HtmlElement, ctx: Context, css: Map<string, string>): void {
    this.flush();
    const width = parseLength(css.get('width') ?? node.attrs.width, ctx.style.fontSize, this.contentWidth - ctx.indent);
    const height = parseLength(css.get('height') ?? node.attrs.height, ctx.style.fontSize);
    const request: ImageRequest = {
      kind: 'image-request',
      src: node.attrs.src ?? '',
      alt: node.attrs.alt ?? '',
      width: width !== undefined && width > 0 ? width : undefined,
      height: height !== undefined && height > 0 ? height : undefined,
      indent: ctx.indent,
      spaceBefore: 0,
      align: ctx.align,
      style: ctx.style,
    };
    this.emit(request, 4, 6);
  }

  private pageBreak(): void {
    this.flush();
    if (++this.breaks > this.limits.maxPageBreaks) {
      throw new PdfInputTooLarge('maxPageBreaks', `The HTML asks for more than ${this.limits.maxPageBreaks} page breaks`);
    }
    this.blocks.push({ kind: 'page-break', indent: 0, spaceBefore: 0 });
    this.pendingSpace = 0;
  }

  private addText(text: string, ctx: Context): void {
    if (ctx.pre) return this.push(text.replace(/\r\n?/g, '\n'), ctx.style);
    // CSS white-space: normal: runs of whitespace are one space, none at a line start.
    let collapsed = text.replace(/[ \t\n\r\f]+/g, ' ');
    if (collapsed.startsWith(' ') && this.atLineStart()) collapsed = collapsed.slice(1);
    if (collapsed) this.push(collapsed, ctx.style);
  }

  private atLineStart(): boolean {
    const last = this.runs[this.runs.length - 1];
    return !last || last.text.endsWith(' ') || last.text.endsWith('\n');
  }

  private push(text: string, style: TextStyle): void {
    const normalized = normalizeText(text);
    const last = this.runs[this.runs.length - 1];
    if (last && last.style === style) last.text += normalized;
    else this.runs.push({ text: normalized, style });
  }

  /** Ends the open paragraph: trailing spaces go, and whitespace-only paragraphs vanish. */
  private flush(keepWithNext = false): void {
    const runs = this.runs;
    this.runs = [];
    if (!this.owner.pre) {
      while (runs.length > 0 && runs[runs.length - 1].text.trimEnd() === '') runs.pop();
      if (runs.length > 0) runs[runs.length - 1].text = runs[runs.length - 1].text.replace(/ +$/, '');
    }
    if (runs.some((run) => run.text.trim() !== '')) this.emitText(runs, this.owner, keepWithNext);
  }

  private emitText(runs: Run[], ctx: Context, keepWithNext: boolean): void {
    const marker = this.pendingMarker;
    this.pendingMarker = undefined;
    this.emit({ kind: 'text', runs, align: ctx.align, indent: ctx.indent, spaceBefore: 0, marker, keepWithNext }, 0, 0);
  }

  /** Appends a block with the margins collapsed into the space above it. */
  private emit(block: BuiltBlock, marginTop: number, marginBottom: number): void {
    if (block.kind !== 'text' && this.pendingMarker) this.emitText([], this.owner, false);
    block.spaceBefore = Math.max(this.pendingSpace, marginTop);
    this.blocks.push(block);
    this.pendingSpace = marginBottom;
  }
}

function listBullet(depth: number, type: string): string | undefined {
  switch (type.toLowerCase()) {
    case 'none':
      return undefined;
    case 'disc':
      return BULLETS[0];
    case 'circle':
      return BULLETS[1];
    case 'square':
      return BULLETS[2];
    default:
      return BULLETS[Math.min(depth, BULLETS.length - 1)];
  }
}

function listNumber(n: number, type: string): string | undefined {
  switch (type) {
    case 'none':
      return undefined;
    case 'a':
    case 'lower-alpha':
    case 'lower-latin':
      return `${alpha(n)}.`;
    case 'A':
    case 'upper-alpha':
    case 'upper-latin':
      return `${alpha(n).toUpperCase()}.`;
    case 'i':
    case 'lower-roman':
      return `${roman(n)}.`;
    case 'I':
    case 'upper-roman':
      return `${roman(n).toUpperCase()}.`;
    default:
      return `${n}.`;
  }
}

function alpha(n: number): string {
  let s = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(97 + ((k - 1) % 26)) + s;
  return s || String(n);
}

function roman(n: number): string {
  if (n <= 0 || n >= 4000) return String(n);
  const numerals: [number, string][] = [
    [1000, 'm'],
    [900, 'cm'],
    [500, 'd'],
    [400, 'cd'],
    [100, 'c'],
    [90, 'xc'],
    [50, 'l'],
    [40, 'xl'],
    [10, 'x'],
    [9, 'ix'],
    [5, 'v'],
    [4, 'iv'],
    [1, 'i'],
  ];
  let s = '';
  let k = n;
  for (const [value, numeral] of numerals) {
    for (; k >= value; k -= value) s += numeral;
  }
  return s;
}
