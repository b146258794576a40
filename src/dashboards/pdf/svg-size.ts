import { parseLength } from './css-style';
import type { HtmlElement } from './html-tree';

export interface ViewBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The `viewBox` attribute (four numbers, positive size), or undefined. */
export function parseViewBox(value: string | undefined): ViewBox | undefined {
  if (!value) return undefined;
  const parts = value
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  if (parts.length !== 4 || !parts.every(Number.isFinite) || parts[2] <= 0 || parts[3] <= 0) return undefined;
  return { x: parts[0], y: parts[1], width: parts[2], height: parts[3] };
}

/** A browser's size for an `<svg>` that says nothing: 300 × 150 CSS pixels. */
const DEFAULT_WIDTH = 225;
const DEFAULT_HEIGHT = 112.5;

/**
 * The size of an outer `<svg>` in points: `width`/`height` from its style or
 * attributes (px, pt, %, …); a missing one follows from the other through the
 * viewBox's aspect ratio; with neither, the viewBox fills the available width;
 * with nothing at all, a browser's 300 × 150 px.
 */
export function svgSize(svg: HtmlElement, css: Map<string, string>, available: number): { width: number; height: number } {
  const viewBox = parseViewBox(svg.attrs.viewbox);
  const positive = (n: number | undefined) => (n !== undefined && Number.isFinite(n) && n > 0 ? n : undefined);
  let width = positive(parseLength(css.get('width') ?? svg.attrs.width, 10, available));
  let height = positive(parseLength(css.get('height') ?? svg.attrs.height, 10));
  const aspect = viewBox ? viewBox.height / viewBox.width : undefined;
  if (width === undefined && height === undefined && aspect !== undefined) width = available;
  if (width === undefined) width = height !== undefined && aspect !== undefined ? height / aspect : DEFAULT_WIDTH;
  if (height === undefined) height = aspect !== undefined ? width * aspect : DEFAULT_HEIGHT;
  return { width, height };
}
