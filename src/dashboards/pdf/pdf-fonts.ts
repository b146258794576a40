import type { Rgba } from './css-style';
import type { TextStyle } from './layout-model';

/** The standard PDF font for a style: Helvetica, or Courier for monospace, in its four faces (nothing is embedded). */
export function fontName(style: Pick<TextStyle, 'bold' | 'italic' | 'mono'>): string {
  const family = style.mono ? 'Courier' : 'Helvetica';
  const face = style.bold && style.italic ? '-BoldOblique' : style.bold ? '-Bold' : style.italic ? '-Oblique' : '';
  return family + face;
}

/** Sets font, size and fill colour on the document for text in `style`. */
export function applyTextStyle(doc: PDFKit.PDFDocument, style: TextStyle): void {
  doc.font(fontName(style)).fontSize(style.fontSize);
  setFill(doc, style.color);
}

export function setFill(doc: PDFKit.PDFDocument, color: Rgba, opacity = 1): void {
  doc.fillColor(color.rgb, color.alpha * opacity);
}

export function setStroke(doc: PDFKit.PDFDocument, color: Rgba, opacity = 1): void {
  doc.strokeColor(color.rgb, color.alpha * opacity);
}
