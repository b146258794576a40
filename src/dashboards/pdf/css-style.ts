import colorString from 'color-string';
import parseInlineStyle from 'inline-style-parser';

/** An sRGB colour, 0–255 per channel, with its alpha (0–1). */
export interface Rgba {
  rgb: [number, number, number];
  alpha: number;
}

/** The declarations of a `style` attribute, property names lower-case; a malformed declaration is skipped. */
export function styleDeclarations(style: string | undefined): Map<string, string> {
  const declarations = new Map<string, string>();
  if (!style) return declarations;
  for (const item of parseInlineStyle(style, { silent: true })) {
    if (item.type === 'declaration' && item.property && item.value) {
      declarations.set(item.property.toLowerCase(), item.value.replace(/\s*!important\s*$/i, '').trim());
    }
  }
  return declarations;
}

/** A CSS colour (names, #rgb, #rrggbb, #rrggbbaa, rgb(), rgba()); undefined for anything else. */
export function parseColor(value: string | undefined): Rgba | undefined {
  if (!value) return undefined;
  const parsed = colorString.get.rgb(value.trim());
  if (!parsed) return undefined;
  return { rgb: [parsed[0], parsed[1], parsed[2]], alpha: parsed[3] };
}

const PX_TO_PT = 0.75;

const FONT_SIZE_KEYWORDS = new Map([
  ['xx-small', 0.6],
  ['x-small', 0.75],
  ['small', 0.89],
  ['medium', 1],
  ['large', 1.2],
  ['x-large', 1.5],
  ['xx-large', 2],
  ['smaller', 0.83],
  ['larger', 1.2],
]);

/**
 * A CSS length as PDF points: px (and unitless numbers, as HTML width and
 * height attributes are), pt, em/rem against `emPt`, % against `percentOf`.
 * Undefined when it is not a length this renderer understands.
 */
export function parseLength(value: string | undefined, emPt: number, percentOf?: number): number | undefined {
  if (value === undefined) return undefined;
  const match = /^\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*(px|pt|em|rem|%|in|cm|mm)?\s*$/i.exec(value);
  if (!match) return undefined;
  const n = Number(match[1]);
  switch ((match[2] ?? 'px').toLowerCase()) {
    case 'px':
      return n * PX_TO_PT;
    case 'pt':
      return n;
    case 'em':
    case 'rem':
      return n * emPt;
    case 'in':
      return n * 72;
    case 'cm':
      return (n * 72) / 2.54;
    case 'mm':
      return (n * 72) / 25.4;
    case '%':
      return percentOf === undefined ? undefined : (n / 100) * percentOf;
    default:
      return undefined;
  }
}

/** `font-size` against the parent's size, clamped to 4–96 pt so a hostile value cannot stall line breaking. */
export function parseFontSize(value: string | undefined, parentPt: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  const keyword = FONT_SIZE_KEYWORDS.get(v);
  // `smaller` and `larger` are relative to the parent, the other keywords to the 12 pt `medium`.
  const relative = v === 'smaller' || v === 'larger';
  const size = keyword !== undefined ? keyword * (relative ? parentPt : 12) : parseLength(v, parentPt, parentPt);
  return size === undefined || !Number.isFinite(size) ? undefined : Math.min(96, Math.max(4, size));
}

/** `font-weight`: true for bold, false for normal, undefined when not given or not understood. */
export function parseFontWeight(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v === 'bold' || v === 'bolder') return true;
  if (v === 'normal' || v === 'lighter') return false;
  const n = Number(v);
  return Number.isFinite(n) ? n >= 600 : undefined;
}

/** `font-style`: true for italic/oblique, false for normal. */
export function parseFontStyle(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (v.startsWith('italic') || v.startsWith('oblique')) return true;
  return v === 'normal' ? false : undefined;
}

export type TextAlign = 'left' | 'center' | 'right' | 'justify';

export function parseTextAlign(value: string | undefined): TextAlign | undefined {
  const v = value?.trim().toLowerCase();
  if (v === 'left' || v === 'start') return 'left';
  if (v === 'right' || v === 'end') return 'right';
  if (v === 'center' || v === 'justify') return v;
  return undefined;
}

const BREAK_VALUES = new Set(['always', 'page', 'left', 'right', 'recto', 'verso']);

/** Whether the element asks for a page break before and after it (CSS 2 `page-break-*` and CSS 3 `break-*`). */
export function pageBreaks(style: Map<string, string>): { before: boolean; after: boolean } {
  const is = (property: string) => BREAK_VALUES.has((style.get(property) ?? '').toLowerCase());
  return { before: is('page-break-before') || is('break-before'), after: is('page-break-after') || is('break-after') };
}
