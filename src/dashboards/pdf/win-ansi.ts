/**
 * The characters the standard PDF fonts (Helvetica, Courier) can show:
 * Windows-1252. pdfkit would encode anything else as arbitrary bytes, so it is
 * replaced with `?` (one per code point) before it reaches a font; zero-width
 * characters are dropped and tabs become spaces.
 */
const OUTSIDE_WIN_ANSI =
  /[^\n\x20-\x7e\xa0-\xff\u20ac\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u017d\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u017e\u0178]/gu;
const ZERO_WIDTH = new Set(['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff']);

export function toWinAnsi(text: string): string {
  // NFC first, so a letter written with a combining accent becomes the accented letter Windows-1252 has.
  return text.normalize('NFC').replace(OUTSIDE_WIN_ANSI, (ch) => (ch === '\t' ? ' ' : ZERO_WIDTH.has(ch) ? '' : '?'));
}
