import { parseColor, styleDeclarations, type Rgba } from './css-style';
import type { HtmlElement } from './html-tree';

/** The inherited presentation state of an SVG element. */
export interface SvgPaint {
  fill: Rgba | undefined;
  stroke: Rgba | undefined;
  color: Rgba;
  strokeWidth: number;
  opacity: number;
  fillOpacity: number;
  strokeOpacity: number;
  fillRule: 'nonzero' | 'evenodd';
  lineCap: 'butt' | 'round' | 'square';
  lineJoin: 'miter' | 'round' | 'bevel';
  dash: number[] | undefined;
  fontSize: number;
  bold: boolean;
  italic: boolean;
  textAnchor: 'start' | 'middle' | 'end';
  /** Where a text's y puts it, as pdfkit's `baseline` option: from `dominant-baseline` (ECharts centres its labels with `central`). */
  baseline: TextBaseline;
  hidden: boolean;
}

export type TextBaseline = 'alphabetic' | 'svg-central' | 'svg-middle' | 'hanging' | 'mathematical' | 'top' | 'bottom';

/** SVG's `dominant-baseline` (and `alignment-baseline`) values in pdfkit's terms; `auto` and unknown values: alphabetic. */
const BASELINES: Record<string, TextBaseline> = {
  auto: 'alphabetic',
  alphabetic: 'alphabetic',
  central: 'svg-central',
  middle: 'svg-middle',
  hanging: 'hanging',
  mathematical: 'mathematical',
  'text-before-edge': 'top',
  'text-top': 'top',
  'before-edge': 'top',
  'text-after-edge': 'bottom',
  'text-bottom': 'bottom',
  'after-edge': 'bottom',
  ideographic: 'bottom',
};

const BLACK: Rgba = { rgb: [0, 0, 0], alpha: 1 };

/** SVG's initial values: black fill, no stroke, 16 px text. */
export const INITIAL_PAINT: SvgPaint = {
  fill: BLACK,
  stroke: undefined,
  color: BLACK,
  strokeWidth: 1,
  opacity: 1,
  fillOpacity: 1,
  strokeOpacity: 1,
  fillRule: 'nonzero',
  lineCap: 'butt',
  lineJoin: 'miter',
  dash: undefined,
  fontSize: 16,
  bold: false,
  italic: false,
  textAnchor: 'start',
  baseline: 'alphabetic',
  hidden: false,
};

/** Finds an element of the SVG by id: a gradient for `url(#id)` paint, a clipPath for `clip-path`. */
export type GradientLookup = (id: string) => HtmlElement | undefined;

const num = (value: string | undefined) => {
  const n = Number.parseFloat(value ?? '');
  return Number.isFinite(n) ? n : undefined;
};
const fraction = (value: string | undefined) => {
  const n = num(value);
  if (n === undefined) return undefined;
  return Math.min(1, Math.max(0, value!.trim().endsWith('%') ? n / 100 : n));
};

/**
 * The paint of an element: its presentation attributes, then its `style`
 * (which wins), over what it inherits. `url(#gradient)` paints with the
 * gradient's first stop colour; other paint servers and unknown values keep
 * the inherited paint.
 */
export function derivePaint(element: HtmlElement, parent: SvgPaint, gradient: GradientLookup): SvgPaint {
  const css = styleDeclarations(element.attrs.style);
  const get = (name: string) => css.get(name) ?? element.attrs[name];
  const paint: SvgPaint = { ...parent };
  const color = parseColor(get('color'));
  if (color) paint.color = color;
  const resolve = (value: string | undefined, inherited: Rgba | undefined): Rgba | undefined => {
    if (value === undefined) return inherited;
    const v = value.trim();
    if (v === 'none' || v === 'transparent') return undefined;
    if (v === 'currentColor' || v === 'currentcolor') return paint.color;
    const url = /^url\(\s*['"]?#([^'")\s]+)['"]?\s*\)/.exec(v);
    if (url) return gradientColor(gradient(url[1])) ?? inherited;
    return parseColor(v) ?? inherited;
  };
  paint.fill = resolve(get('fill'), parent.fill);
  paint.stroke = resolve(get('stroke'), parent.stroke);
  paint.strokeWidth = Math.max(0, num(get('stroke-width')) ?? parent.strokeWidth);
  // Group opacity multiplies down the tree (drawn per shape here, not composited per group).
  paint.opacity = parent.opacity * (fraction(get('opacity')) ?? 1);
  paint.fillOpacity = fraction(get('fill-opacity')) ?? parent.fillOpacity;
  paint.strokeOpacity = fraction(get('stroke-opacity')) ?? parent.strokeOpacity;
  const rule = get('fill-rule');
  if (rule === 'evenodd' || rule === 'nonzero') paint.fillRule = rule;
  const cap = get('stroke-linecap');
  if (cap === 'butt' || cap === 'round' || cap === 'square') paint.lineCap = cap;
  const join = get('stroke-linejoin');
  if (join === 'miter' || join === 'round' || join === 'bevel') paint.lineJoin = join;
  const dash = get('stroke-dasharray');
  if (dash !== undefined) {
    const parts = dash.trim() === 'none' ? [] : dash.split(/[\s,]+/).map(Number);
    paint.dash = parts.length > 0 && parts.every((n) => Number.isFinite(n) && n >= 0) && parts.some((n) => n > 0) ? parts : undefined;
  }
  const size = num(get('font-size'));
  if (size !== undefined && size > 0) paint.fontSize = Math.min(size, 1000);
  const weight = get('font-weight');
  if (weight !== undefined) paint.bold = weight === 'bold' || weight === 'bolder' || (num(weight) ?? 400) >= 600;
  const style = get('font-style');
  if (style !== undefined) paint.italic = style === 'italic' || style === 'oblique';
  const anchor = get('text-anchor');
  if (anchor === 'start' || anchor === 'middle' || anchor === 'end') paint.textAnchor = anchor;
  const baseline = get('dominant-baseline') ?? get('alignment-baseline');
  if (baseline !== undefined) paint.baseline = BASELINES[baseline.trim()] ?? 'alphabetic';
  const display = get('display');
  const visibility = get('visibility');
  paint.hidden = display === 'none' || visibility === 'hidden' || visibility === 'collapse';
  return paint;
}

function gradientColor(gradient: HtmlElement | undefined): Rgba | undefined {
  if (!gradient || (gradient.tag !== 'lineargradient' && gradient.tag !== 'radialgradient')) return undefined;
  for (const stop of gradient.children) {
    if (typeof stop === 'string' || stop.tag !== 'stop') continue;
    const css = styleDeclarations(stop.attrs.style);
    const color = parseColor(css.get('stop-color') ?? stop.attrs['stop-color'] ?? 'black');
    const opacity = fraction(css.get('stop-opacity') ?? stop.attrs['stop-opacity']) ?? 1;
    if (color) return { rgb: color.rgb, alpha: color.alpha * opacity };
  }
  return undefined;
}
