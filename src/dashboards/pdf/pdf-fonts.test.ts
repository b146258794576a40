import { fontSpans, MISSING_GLYPH, type FontStyle } from './pdf-fonts';

const regular: FontStyle = { bold: false, italic: false, mono: false };
/** Each span as "font: text", oblique ones marked. */
const spans = (text: string, style: FontStyle = regular) => fontSpans(text, style).map((s) => `${s.font.name}${s.oblique ? ' (oblique)' : ''}: ${s.text}`);

describe('fontSpans: which font draws each character', () => {
  it('draws Latin, accented Latin, Cyrillic, Greek and symbols in DejaVu Sans, in one span', () => {
    expect(spans('Hello')).toEqual(['DejaVuSans: Hello']);
    const text = 'Café Zürich Łódź — Привет, Καλημέρα ✓ → € ≤ ∑ “ok” …';
    expect(spans(text)).toEqual([`DejaVuSans: ${text}`]);
    expect(spans('')).toEqual([]);
  });

  it('draws CJK in Noto Sans SC, Hangul in Noto Sans KR; spaces stay with the text before them', () => {
    expect(spans('Revenue 東京 ✓ 销售 こんにちは 한국어')).toEqual([
      'DejaVuSans: Revenue ',
      'NotoSansSC-Regular: 東京 ',
      'DejaVuSans: ✓ ',
      'NotoSansSC-Regular: 销售 こんにちは ',
      'NotoSansKR-Regular: 한국어',
    ]);
  });

  it('uses the bold face of every font for bold text, and slants CJK (which has no italic) for italic text', () => {
    expect(spans('Σ 北京', { bold: true, italic: false, mono: false })).toEqual(['DejaVuSans-Bold: Σ ', 'NotoSansSC-Bold: 北京']);
    expect(spans('Σ 北京', { bold: false, italic: true, mono: false })).toEqual(['DejaVuSans-Oblique: Σ ', 'NotoSansSC-Regular (oblique): 北京']);
    expect(spans('Σ 北京', { bold: true, italic: true, mono: false })).toEqual(['DejaVuSans-BoldOblique: Σ ', 'NotoSansSC-Bold (oblique): 北京']);
  });

  it('draws monospace text in DejaVu Sans Mono, and what Mono lacks in DejaVu Sans (Hebrew), then CJK', () => {
    expect(spans('let x = "Привет"; // שלום 中文', { bold: false, italic: false, mono: true })).toEqual([
      'DejaVuSansMono: let x = "Привет"; // ',
      'DejaVuSans: שלום ',
      'NotoSansSC-Regular: 中文',
    ]);
  });

  it('draws one MISSING_GLYPH for a character no font has, for a whole emoji sequence and for a flag', () => {
    const family = '\u{1f468}\u200d\u{1f469}\u200d\u{1f467}';
    const thumbsUpMedium = '\u{1f44d}\u{1f3fd}';
    const runner = '\u{1f3c3}\u200d\u2640\ufe0f';
    const flags = '\u{1f1e9}\u{1f1ea}\u{1f1eb}\u{1f1f7}';
    expect(spans(`a ${family} b ${thumbsUpMedium} c ${runner} d ${flags} e \ue000`)).toEqual([
      `DejaVuSans: a ${MISSING_GLYPH} b ${MISSING_GLYPH} c ${MISSING_GLYPH} d ${MISSING_GLYPH}${MISSING_GLYPH} e ${MISSING_GLYPH}`,
    ]);
    // Devanagari: a placeholder per letter, its vowel signs and virama taken in with it.
    expect(spans('नमस्ते')).toEqual([`DejaVuSans: ${MISSING_GLYPH.repeat(4)}`]);
    expect(spans('\ud800 lone surrogate')).toEqual([`DejaVuSans: ${MISSING_GLYPH} lone surrogate`]);
  });

  it('drops invisible characters no font has (controls), keeps the ones the font draws as nothing', () => {
    expect(spans('a\u0007b\u0000c')).toEqual(['DejaVuSans: abc']);
    expect(spans('zero\u200bwidth')).toEqual(['DejaVuSans: zero\u200bwidth']);
  });

  it('splits a million characters of mixed scripts into spans that give back the text', () => {
    const text = 'Привет 東京 ✓ 한국어 abc '.repeat(50_000);
    const result = fontSpans(text, regular);
    expect(result.map((s) => s.text).join('')).toBe(text);
  });
});
