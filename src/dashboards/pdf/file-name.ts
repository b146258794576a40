import { create as contentDisposition } from 'content-disposition';

/** File names longer than this (in characters, before `.pdf`) are cut. */
const MAX_NAME = 100;

/**
 * A name for a file: control characters (CR, LF…) become spaces, quotes
 * are dropped, path separators and the other characters Windows forbids
 * (`\ / : * ? < > |`) become `_`, whitespace collapses, leading and trailing
 * dots go (no `..`, no hidden file), and a `.pdf` the title already ends in
 * is not doubled. Empty when nothing is left.
 */
function cleanName(raw: string | undefined): string {
  if (typeof raw !== 'string') return '';
  const cleaned = raw
    .normalize('NFC')
    // Control characters (CR, LF, NUL…) and the Unicode line separators.
    .replace(/\p{Cc}|[\u2028\u2029]/gu, ' ')
    .replace(/["'`]/g, '')
    .replace(/[\\/:*?<>|]/g, '_')
    .replace(/\s+/g, ' ')
    .replace(/\.pdf\s*$/i, '')
    .replace(/^[\s.]+|[\s.]+$/g, '');
  const chars = Array.from(cleaned);
  return chars.length > MAX_NAME ? chars.slice(0, MAX_NAME).join('').trimEnd() : cleaned;
}

/** The ASCII fallback: accents stripped (é → e), anything else outside printable ASCII (and %) as `_`. */
function asciiName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|%/gu, '_')
    .replace(/_{2,}/g, '_');
}

/**
 * The `Content-Disposition` value for a PDF download named from `title`,
 * else `fallbackName` (the dashboard's name), else "dashboard": `attachment;
 * filename="<ASCII>.pdf"` and, when the name is not plain ASCII, `filename*=
 * UTF-8''<percent-encoded>.pdf` (RFC 6266 / 5987), which browsers prefer.
 * Safe for any input: no quotes, CR/LF or path separators reach the header.
 */
export function pdfFileName(title: string | undefined, fallbackName: string): string {
  const name = cleanName(title) || cleanName(fallbackName) || 'dashboard';
  let ascii = asciiName(name).trim();
  if (ascii.replace(/[_\s.-]/g, '') === '') ascii = 'dashboard';
  return contentDisposition(`${name}.pdf`, { fallback: `${ascii}.pdf` });
}
