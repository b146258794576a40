import { isElement, type HtmlElement } from './html-tree';
import { fontSpans, setFill, setStroke, spansWidth } from './pdf-fonts';
import { drawSpans } from './span-lines';
import { derivePaint, INITIAL_PAINT, type GradientLookup, type SvgPaint } from './svg-paint';
import { parseViewBox, type ViewBox } from './svg-size';
import { parseTransform } from './svg-transform';
import { normalizeText } from './text-normalize';

/** Elements that draw nothing themselves (definitions, metadata) or that this renderer does not draw. */
const SKIPPED = new Set([
  'defs',
  'title',
  'desc',
  'metadata',
  'clippath',
  'mask',
  'pattern',
  'lineargradient',
  'radialgradient',
  'symbol',
  'marker',
  'filter',
  'foreignobject',
  'image',
  'use',
  'style',
]);

/** pdfkit refuses numbers past ±1e21; far smaller ones already lie off any page. */
const LIMIT = 1e9;
const finite = (...values: number[]) => values.every((v) => Number.isFinite(v) && Math.abs(v) < LIMIT);
const attr = (element: HtmlElement, name: string, fallback = 0) => {
  const value = element.attrs[name];
  if (value === undefined) return fallback;
  // Lengths in user units; "px" and a bare number mean the same there.
  const n = Number.parseFloat(value);
  return Number.isFinite(n) ? n : NaN;
};

/**
 * Draws an inline `<svg>` chart into the box (x, y, width, height) in points:
 * the viewBox is mapped onto the box (preserveAspectRatio, default xMidYMid
 * meet), clipped to it. Shapes: rect, circle, ellipse, line, polyline,
 * polygon, path (pdfkit reads SVG path data), text/tspan; g and nested svg
 * with transforms; fill, stroke, stroke-width, opacities, dashes, line caps
 * and joins, fill-rule, font-size/weight/style, text-anchor,
 * dominant-baseline; clip-path to a clipPath of rects and paths (what
 * ECharts' SSR output uses for its plot area). An element that
 * cannot be drawn (bad numbers, unknown tags) is skipped; its children still
 * are for unknown containers.
 */
export function drawSvg(doc: PDFKit.PDFDocument, svg: HtmlElement, box: { x: number; y: number; width: number; height: number }, viewBox: ViewBox): void {
  const gradient = gradientIndex(svg);
  doc.save();
  try {
    doc.rect(box.x, box.y, box.width, box.height).clip();
    doc.translate(box.x, box.y);
    mapViewBox(doc, viewBox, box.width, box.height, svg.attrs.preserveaspectratio);
    const paint = derivePaint(svg, INITIAL_PAINT, gradient);
    for (const child of svg.children) if (isElement(child)) drawNode(doc, child, paint, gradient);
  } finally {
    doc.restore();
  }
}

function mapViewBox(doc: PDFKit.PDFDocument, viewBox: ViewBox, width: number, height: number, preserve: string | undefined): void {
  const [align = 'xMidYMid', mode = 'meet'] = (preserve ?? '').trim().split(/\s+/).filter(Boolean);
  let sx = width / viewBox.width;
  let sy = height / viewBox.height;
  let tx = 0;
  let ty = 0;
  if (align !== 'none') {
    const s = mode === 'slice' ? Math.max(sx, sy) : Math.min(sx, sy);
    sx = sy = s;
    const fx = align.includes('xMin') ? 0 : align.includes('xMax') ? 1 : 0.5;
    const fy = align.includes('YMin') ? 0 : align.includes('YMax') ? 1 : 0.5;
    tx = (width - viewBox.width * s) * fx;
    ty = (height - viewBox.height * s) * fy;
  }
  doc.translate(tx, ty).scale(sx, sy).translate(-viewBox.x, -viewBox.y);
}

function gradientIndex(svg: HtmlElement): GradientLookup {
  let index: Map<string, HtmlElement> | undefined;
  return (id) => {
    if (!index) {
      index = new Map();
      const walk = (element: HtmlElement) => {
        if (element.attrs.id && !index!.has(element.attrs.id)) index!.set(element.attrs.id, element);
        for (const child of element.children) if (isElement(child)) walk(child);
      };
      walk(svg);
    }
    return index.get(id);
  };
}

function drawNode(doc: PDFKit.PDFDocument, element: HtmlElement, parent: SvgPaint, gradient: GradientLookup): void {
  if (SKIPPED.has(element.tag)) return;
  const paint = derivePaint(element, parent, gradient);
  if (paint.hidden) return;
  const transforms = parseTransform(element.attrs.transform);
  doc.save();
  try {
    for (const m of transforms) if (finite(...m)) doc.transform(...m);
    clipTo(doc, element.attrs['clip-path'], gradient);
    drawShape(doc, element, paint, gradient);
  } catch {
    // A shape pdfkit refused part-way (a number out of its range): end the unpainted path and go on.
    doc.addContent('n');
  } finally {
    doc.restore();
  }
}

function drawShape(doc: PDFKit.PDFDocument, element: HtmlElement, paint: SvgPaint, gradient: GradientLookup): void {
  const a = (name: string, fallback = 0) => attr(element, name, fallback);
  switch (element.tag) {
    case 'rect': {
      const [x, y, w, h] = [a('x'), a('y'), a('width'), a('height')];
      if (!finite(x, y, w, h) || w <= 0 || h <= 0) return;
      const rx = Math.min(w / 2, Math.max(0, a('rx', a('ry', 0)) || 0));
      if (!hasPaint(paint)) return;
      if (rx > 0) doc.roundedRect(x, y, w, h, rx);
      else doc.rect(x, y, w, h);
      return paintPath(doc, paint);
    }
    case 'circle': {
      const [cx, cy, r] = [a('cx'), a('cy'), a('r')];
      if (!finite(cx, cy, r) || r <= 0 || !hasPaint(paint)) return;
      doc.circle(cx, cy, r);
      return paintPath(doc, paint);
    }
    case 'ellipse': {
      const [cx, cy, rx, ry] = [a('cx'), a('cy'), a('rx'), a('ry')];
      if (!finite(cx, cy, rx, ry) || rx <= 0 || ry <= 0 || !hasPaint(paint)) return;
      doc.ellipse(cx, cy, rx, ry);
      return paintPath(doc, paint);
    }
    case 'line': {
      const [x1, y1, x2, y2] = [a('x1'), a('y1'), a('x2'), a('y2')];
      if (!finite(x1, y1, x2, y2) || !paint.stroke) return;
      doc.moveTo(x1, y1).lineTo(x2, y2);
      return paintPath(doc, { ...paint, fill: undefined });
    }
    case 'polyline':
    case 'polygon': {
      const points = (element.attrs.points ?? '')
        .trim()
        .split(/[\s,]+/)
        .filter(Boolean)
        .map(Number);
      if (points.length < 4 || !finite(...points) || !hasPaint(paint)) return;
      doc.moveTo(points[0], points[1]);
      for (let i = 2; i + 1 < points.length; i += 2) doc.lineTo(points[i], points[i + 1]);
      if (element.tag === 'polygon') doc.closePath();
      return paintPath(doc, paint);
    }
    case 'path': {
      const d = element.attrs.d;
      if (!d || !hasPaint(paint)) return;
      doc.path(d);
      return paintPath(doc, paint);
    }
    case 'text':
      return drawText(doc, element, paint, gradient);
    case 'svg': {
      const [x, y, w, h] = [a('x'), a('y'), a('width', NaN), a('height', NaN)];
      const viewBox = parseViewBox(element.attrs.viewbox);
      doc.translate(finite(x) ? x : 0, finite(y) ? y : 0);
      if (viewBox && finite(w, h) && w > 0 && h > 0) mapViewBox(doc, viewBox, w, h, element.attrs.preserveaspectratio);
      break;
    }
  }
  // g, a, switch, nested svg, and unknown containers: their children.
  for (const child of element.children) if (isElement(child)) drawNode(doc, child, paint, gradient);
}

/**
 * Clips to `clip-path="url(#id)"` when the id is a `<clipPath>`: the union of
 * its rects and paths (in the user space of the clipped element, the
 * default clipPathUnits, each with its own transform). Other shapes in a
 * clipPath, and references to anything else, leave the element unclipped.
 */
function clipTo(doc: PDFKit.PDFDocument, value: string | undefined, lookup: GradientLookup): void {
  const id = value && /^url\(\s*['"]?#([^'")\s]+)['"]?\s*\)/.exec(value.trim())?.[1];
  const clip = id ? lookup(id) : undefined;
  if (!clip || clip.tag !== 'clippath') return;
  let shapes = 0;
  for (const child of clip.children) {
    if (!isElement(child) || (child.tag !== 'rect' && child.tag !== 'path')) continue;
    const m = parseTransform(child.attrs.transform);
    if (m.length > 0) continue; // a transformed clip shape would need its own matrix; rare, and drawing unclipped is the safe side
    if (child.tag === 'path' && child.attrs.d) {
      doc.path(child.attrs.d);
      shapes++;
    } else if (child.tag === 'rect') {
      const [x, y, w, h] = [attr(child, 'x'), attr(child, 'y'), attr(child, 'width'), attr(child, 'height')];
      if (!finite(x, y, w, h) || w <= 0 || h <= 0) continue;
      doc.rect(x, y, w, h);
      shapes++;
    }
  }
  if (shapes > 0) doc.clip();
}

const hasPaint = (paint: SvgPaint) => paint.fill !== undefined || (paint.stroke !== undefined && paint.strokeWidth > 0);

function paintPath(doc: PDFKit.PDFDocument, paint: SvgPaint): void {
  const fill = paint.fill;
  const stroke = paint.stroke && paint.strokeWidth > 0 ? paint.stroke : undefined;
  if (fill) setFill(doc, fill, paint.fillOpacity * paint.opacity);
  if (stroke) {
    setStroke(doc, stroke, paint.strokeOpacity * paint.opacity);
    doc.lineWidth(paint.strokeWidth).lineCap(paint.lineCap).lineJoin(paint.lineJoin);
    if (paint.dash) doc.dash(paint.dash[0], { space: paint.dash[1] ?? paint.dash[0] });
    else doc.undash();
  }
  const rule = paint.fillRule === 'evenodd' ? 'even-odd' : 'non-zero';
  if (fill && stroke) doc.fillAndStroke(rule);
  else if (fill) doc.fill(rule);
  else if (stroke) doc.stroke();
  else doc.addContent('n');
}

/**
 * `<text>` and its `<tspan>`s: each piece starts where its own x/y (or dy)
 * puts it, else right after the previous one; `text-anchor` shifts a piece
 * by its measured width. Whitespace is collapsed as SVG does by default.
 */
function drawText(doc: PDFKit.PDFDocument, element: HtmlElement, paint: SvgPaint, gradient: GradientLookup): void {
  const position = { x: firstNumber(element.attrs.x) ?? 0, y: firstNumber(element.attrs.y) ?? 0 };
  position.x += firstNumber(element.attrs.dx) ?? 0;
  position.y += firstNumber(element.attrs.dy) ?? 0;
  const piece = (text: string, style: SvgPaint) => {
    const clean = normalizeText(text.replace(/[ \t\n\r\f]+/g, ' '));
    if (!clean.trim() || !style.fill || style.hidden) return;
    const spans = fontSpans(clean, { ...style, mono: false });
    const width = spansWidth(doc, spans, style.fontSize);
    const shift = style.textAnchor === 'middle' ? width / 2 : style.textAnchor === 'end' ? width : 0;
    if (!finite(position.x - shift, position.y)) return;
    setFill(doc, style.fill, style.fillOpacity * style.opacity);
    drawSpans(doc, spans, position.x - shift, position.y, style.fontSize, { baseline: style.baseline });
    position.x += width;
  };
  const walk = (node: HtmlElement, style: SvgPaint) => {
    for (const child of node.children) {
      if (typeof child === 'string') piece(child, style);
      else if (child.tag === 'tspan' || child.tag === 'a') {
        const x = firstNumber(child.attrs.x);
        const y = firstNumber(child.attrs.y);
        if (x !== undefined) position.x = x;
        if (y !== undefined) position.y = y;
        position.x += firstNumber(child.attrs.dx) ?? 0;
        position.y += firstNumber(child.attrs.dy) ?? 0;
        walk(child, derivePaint(child, style, gradient));
      }
    }
  };
  walk(element, paint);
}

function firstNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number.parseFloat(value.trim().split(/[\s,]+/)[0]);
  return Number.isFinite(n) ? n : undefined;
}
