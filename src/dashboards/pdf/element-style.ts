import { parseColor, parseFontSize, parseFontStyle, parseFontWeight, parseTextAlign, styleDeclarations, type TextAlign } from './css-style';
import type { HtmlElement } from './html-tree';
import type { TextStyle } from './layout-model';

/** The body text size, in points. */
export const BASE_FONT_SIZE = 10;

export const BASE_STYLE: TextStyle = Object.freeze({
  bold: false,
  italic: false,
  mono: false,
  underline: false,
  strike: false,
  fontSize: BASE_FONT_SIZE,
  color: { rgb: [0, 0, 0], alpha: 1 },
}) as TextStyle;

/** Heading sizes as multiples of the body size, and their margins (points above, below). */
export const HEADINGS: Record<string, { scale: number; margins: [number, number] }> = {
  h1: { scale: 2, margins: [14, 8] },
  h2: { scale: 1.6, margins: [12, 6] },
  h3: { scale: 1.3, margins: [10, 5] },
  h4: { scale: 1.1, margins: [8, 4] },
  h5: { scale: 1, margins: [8, 4] },
  h6: { scale: 0.9, margins: [8, 4] },
};

const BOLD_TAGS = new Set(['b', 'strong', 'th', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'dt']);
const ITALIC_TAGS = new Set(['i', 'em', 'cite', 'var', 'dfn', 'address']);
const MONO_TAGS = new Set(['code', 'kbd', 'samp', 'tt', 'pre']);
const UNDERLINE_TAGS = new Set(['u', 'ins']);
const STRIKE_TAGS = new Set(['s', 'strike', 'del']);
const SMALLER_TAGS = new Set(['small', 'sub', 'sup']);

/** What an element's tag and `style` attribute make of the style it inherits. */
export function deriveTextStyle(element: HtmlElement, parent: TextStyle, style = styleDeclarations(element.attrs.style)): TextStyle {
  const { tag } = element;
  const next: TextStyle = { ...parent };
  if (BOLD_TAGS.has(tag)) next.bold = true;
  if (ITALIC_TAGS.has(tag)) next.italic = true;
  if (MONO_TAGS.has(tag)) next.mono = true;
  if (UNDERLINE_TAGS.has(tag)) next.underline = true;
  if (STRIKE_TAGS.has(tag)) next.strike = true;
  if (SMALLER_TAGS.has(tag)) next.fontSize = parent.fontSize * 0.83;
  if (Object.hasOwn(HEADINGS, tag)) next.fontSize = BASE_FONT_SIZE * HEADINGS[tag].scale;
  if (tag === 'font') {
    const color = parseColor(element.attrs.color);
    if (color) next.color = color;
  }
  const weight = parseFontWeight(style.get('font-weight'));
  if (weight !== undefined) next.bold = weight;
  const italic = parseFontStyle(style.get('font-style'));
  if (italic !== undefined) next.italic = italic;
  const color = parseColor(style.get('color'));
  if (color) next.color = color;
  const size = parseFontSize(style.get('font-size'), parent.fontSize);
  if (size !== undefined) next.fontSize = size;
  const decoration = style.get('text-decoration') ?? style.get('text-decoration-line');
  if (decoration !== undefined) {
    next.underline = decoration.includes('underline');
    next.strike = decoration.includes('line-through');
  }
  const family = style.get('font-family');
  if (family !== undefined) next.mono = /\bmono|courier|consolas|menlo/i.test(family);
  return next;
}

/** `text-align` from the style, else the legacy `align` attribute, else `<center>`, else inherited. */
export function deriveAlign(element: HtmlElement, parent: TextAlign, style: Map<string, string>): TextAlign {
  return parseTextAlign(style.get('text-align')) ?? parseTextAlign(element.attrs.align) ?? (element.tag === 'center' ? 'center' : parent);
}
