/**
 * Text as the renderer keeps it: in NFC, so a letter written with a combining
 * accent becomes the accented letter the fonts have, and with tabs as spaces.
 * Which font draws each character is decided when it is drawn (`fontSpans`).
 */
export function normalizeText(text: string): string {
  return text.normalize('NFC').replace(/\t/g, ' ');
}
