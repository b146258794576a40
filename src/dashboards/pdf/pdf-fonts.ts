import type { Rgba } from './css-style';
import { fontChain, type Face, type FontFile } from './font-files';
import type { TextStyle } from './layout-model';

export type FontStyle = Pick<TextStyle, 'bold' | 'italic' | 'mono'>;

/** A stretch of text drawn in one font. */
export interface FontSpan {
  text: string;
  font: FontFile;
  /** Italic text in a font without an italic: pdfkit slants it. */
  oblique: boolean;
}

/** Drawn for a character no font has: one per character, or per emoji sequence or flag. */
export const MISSING_GLYPH = '\ufffd';

const UNKNOWN = 0;
const NONE = 255;

/** The fonts for one face, and which of them draws each code point (remembered for the Basic Multilingual Plane). */
class Chain {
  private readonly bmp = new Uint8Array(0x10000);

  constructor(readonly fonts: FontFile[]) {}

  /** The index of the first font with a glyph for the code point, or -1. */
  find(codePoint: number): number {
    if (codePoint < 0x10000) {
      let known = this.bmp[codePoint];
      if (known === UNKNOWN) known = this.bmp[codePoint] = this.search(codePoint) + 1 || NONE;
      return known === NONE ? -1 : known - 1;
    }
    return this.search(codePoint);
  }

  private search(codePoint: number): number {
    return this.fonts.findIndex((file) => file.font.hasGlyphForCodePoint(codePoint));
  }
}

const chains = new Map<string, Chain>();

function chainOf(style: FontStyle): Chain {
  const face: Face = style.bold && style.italic ? 'boldItalic' : style.bold ? 'bold' : style.italic ? 'italic' : 'regular';
  const key = `${face}${style.mono ? '-mono' : ''}`;
  let chain = chains.get(key);
  if (!chain) chains.set(key, (chain = new Chain(fontChain(face, style.mono))));
  return chain;
}

/** The style's own font (DejaVu Sans or Sans Mono in its face). */
export const primaryFont = (style: FontStyle): FontFile => chainOf(style).fonts[0];

/** Characters every font of a chain has; they stay in the font of the text around them. */
const NEUTRAL = new Set([' ', '\n', '\u00a0']);
const PRINTABLE_ASCII = /^[\x20-\x7e\n]*$/;
const ZWJ = 0x200d;
const MARK = /^\p{M}$/u;
const within = (codePoint: number, first: number, last: number) => codePoint >= first && codePoint <= last;
/** What can follow a character in one emoji sequence or grapheme: joiner, variation selectors, skin tones, tags, combining marks. */
const extendsSequence = (codePoint: number, ch: string) =>
  codePoint === ZWJ ||
  within(codePoint, 0xfe00, 0xfe0f) ||
  within(codePoint, 0xe0100, 0xe01ef) ||
  within(codePoint, 0x1f3fb, 0x1f3ff) ||
  within(codePoint, 0xe0020, 0xe007f) ||
  MARK.test(ch);
/** Two of them make a flag. */
const isRegionalIndicator = (codePoint: number) => within(codePoint, 0x1f1e6, 0x1f1ff);
/** Drawn as nothing when no font has them: controls and default-ignorable characters (zero-width space, joiners, selectors…). */
const INVISIBLE = /^[\p{Cc}\p{Default_Ignorable_Code_Point}]$/u;

/**
 * Cuts text into spans by font: each character goes to the first font of
 * the style's chain that has it (DejaVu, then the CJK fallbacks), spaces
 * stay with the text around them. A character no font has is drawn as
 * MISSING_GLYPH in DejaVu, one for a whole emoji sequence (joined by ZWJ,
 * with skin tone or variation selector) or flag; invisible characters no font
 * has are dropped. Costs a table look-up a character.
 */
export function fontSpans(text: string, style: FontStyle): FontSpan[] {
  const chain = chainOf(style);
  if (PRINTABLE_ASCII.test(text)) return text ? [{ text, font: chain.fonts[0], oblique: false }] : [];
  const spans: FontSpan[] = [];
  let index = -1;
  let pending = '';
  const add = (ch: string, fontIndex: number) => {
    if (fontIndex !== index && pending) {
      spans.push(span(pending, index));
      pending = '';
    }
    index = fontIndex;
    pending += ch;
  };
  const span = (part: string, fontIndex: number): FontSpan => {
    const font = chain.fonts[fontIndex];
    return { text: part, font, oblique: style.italic && font.upright };
  };
  // After a MISSING_GLYPH: 'open' takes what extends it, 'joined' (after a ZWJ) the next character too, 'flag' a second regional indicator.
  let sequence: 'none' | 'open' | 'joined' | 'flag' = 'none';
  for (const ch of text) {
    if (NEUTRAL.has(ch)) {
      add(ch, Math.max(index, 0));
      sequence = 'none';
      continue;
    }
    const codePoint = ch.codePointAt(0)!;
    const found = chain.find(codePoint);
    if (sequence !== 'none') {
      if (sequence === 'joined' || extendsSequence(codePoint, ch) || (sequence === 'flag' && isRegionalIndicator(codePoint))) {
        sequence = codePoint === ZWJ ? 'joined' : 'open';
        continue;
      }
      sequence = 'none';
    }
    if (found >= 0) {
      add(ch, found);
    } else if (!INVISIBLE.test(ch)) {
      add(MISSING_GLYPH, 0);
      sequence = isRegionalIndicator(codePoint) ? 'flag' : 'open';
    }
  }
  if (pending) spans.push(span(pending, index));
  return spans;
}

const registered = new WeakMap<PDFKit.PDFDocument, Set<FontFile>>();

/** Makes `file` the document's current font, registering it with the document the first time. */
export function selectFont(doc: PDFKit.PDFDocument, file: FontFile, size: number): void {
  let fonts = registered.get(doc);
  if (!fonts) registered.set(doc, (fonts = new Set()));
  if (!fonts.has(file)) {
    // pdfkit takes a parsed fontkit font where its types say a path or bytes.
    doc.registerFont(file.name, file.font as unknown as Buffer);
    fonts.add(file);
  }
  doc.font(file.name).fontSize(size);
}

/** Sets font (the style's own, or `font`), size and fill colour on the document for text in `style`. */
export function applyTextStyle(doc: PDFKit.PDFDocument, style: TextStyle, font: FontFile = primaryFont(style)): void {
  selectFont(doc, font, style.fontSize);
  setFill(doc, style.color);
}

/** The width of spans side by side at `size` points; leaves the last span's font selected. */
export function spansWidth(doc: PDFKit.PDFDocument, spans: FontSpan[], size: number): number {
  let width = 0;
  for (const { text, font } of spans) {
    selectFont(doc, font, size);
    width += doc.widthOfString(text);
  }
  return width;
}

export function setFill(doc: PDFKit.PDFDocument, color: Rgba, opacity = 1): void {
  doc.fillColor(color.rgb, color.alpha * opacity);
}

export function setStroke(doc: PDFKit.PDFDocument, color: Rgba, opacity = 1): void {
  doc.strokeColor(color.rgb, color.alpha * opacity);
}
