import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import * as fontkit from 'fontkit';

/**
 * One TrueType font file from an npm package, read and parsed at most once
 * per process and shared by every document (pdfkit takes a parsed fontkit
 * font as a font source and subsets it per document, so each PDF carries
 * only the glyphs it uses).
 */
export class FontFile {
  private parsed: fontkit.Font | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    /** The name the font is registered under in a document. */
    readonly name: string,
    private readonly path: string,
    /** True for a fallback that has no italic of its own: italic text in it is slanted by pdfkit. */
    readonly upright = false,
    private readonly adapt?: (font: fontkit.Font) => void,
  ) {}

  /** Reads the file without holding the event loop; once per process. */
  load(): Promise<void> {
    this.loading ??= readFile(this.path).then(
      (bytes) => void this.parse(bytes),
      (error: unknown) => {
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  /** The parsed font; read synchronously if `load` has not run (a fallback the look at the HTML did not foresee). */
  get font(): fontkit.Font {
    return this.parsed ?? this.parse(readFileSync(this.path));
  }

  private parse(bytes: Buffer): fontkit.Font {
    if (!this.parsed) {
      const font = fontkit.create(bytes);
      if (!('layout' in font)) throw new Error(`${this.path} is a font collection, not one font`);
      this.adapt?.(font);
      this.parsed = font;
    }
    return this.parsed;
  }
}

export type Face = 'regular' | 'bold' | 'italic' | 'boldItalic';

const dejavu = (file: string) => require.resolve(`dejavu-fonts-ttf/ttf/${file}`);

/** DejaVu Sans and Sans Mono (Bitstream Vera licence): Latin, Greek, Cyrillic, Armenian, Georgian, Hebrew, arrows, maths, box drawing, dingbats. */
const SANS: Record<Face, FontFile> = {
  regular: new FontFile('DejaVuSans', dejavu('DejaVuSans.ttf')),
  bold: new FontFile('DejaVuSans-Bold', dejavu('DejaVuSans-Bold.ttf')),
  italic: new FontFile('DejaVuSans-Oblique', dejavu('DejaVuSans-Oblique.ttf')),
  boldItalic: new FontFile('DejaVuSans-BoldOblique', dejavu('DejaVuSans-BoldOblique.ttf')),
};
const MONO: Record<Face, FontFile> = {
  regular: new FontFile('DejaVuSansMono', dejavu('DejaVuSansMono.ttf')),
  bold: new FontFile('DejaVuSansMono-Bold', dejavu('DejaVuSansMono-Bold.ttf')),
  italic: new FontFile('DejaVuSansMono-Oblique', dejavu('DejaVuSansMono-Oblique.ttf')),
  boldItalic: new FontFile('DejaVuSansMono-BoldOblique', dejavu('DejaVuSansMono-BoldOblique.ttf')),
};

/**
 * A fallback takes the vertical metrics of DejaVu Sans (in its own units), so
 * text that mixes it with DejaVu on one line keeps one baseline and one line
 * height (Noto's own ascent is 1.16 em against DejaVu's 0.93: its glyphs
 * would sit lower and its lines be taller). CJK glyphs stay within 0.88 em
 * above and 0.12 em below the baseline, inside DejaVu's line.
 */
function dejavuMetrics(font: fontkit.Font): void {
  const reference = SANS.regular.font;
  const scale = font.unitsPerEm / reference.unitsPerEm;
  for (const key of ['ascent', 'descent', 'lineGap'] as const) Object.defineProperty(font, key, { value: reference[key] * scale });
}

const noto = (script: 'sc' | 'kr', weight: '400Regular' | '700Bold') =>
  new FontFile(
    `NotoSans${script.toUpperCase()}-${weight.slice(3)}`,
    require.resolve(`@expo-google-fonts/noto-sans-${script}/${weight}/NotoSans${script.toUpperCase()}_${weight}.ttf`),
    true,
    dejavuMetrics,
  );

interface Fallback {
  regular: FontFile;
  bold: FontFile;
  /** Characters that make this font likely to be needed: HTML that has one reads the font in the background before drawing. */
  likely: RegExp;
}

/**
 * Fonts for the characters DejaVu lacks, tried in order (OFL 1.1). Noto Sans
 * SC: Han ideographs (simplified and traditional, 20,976 of the 20,992
 * unified ones), kana, CJK punctuation, full-width forms. Noto Sans KR:
 * Hangul. Only the regular and bold weights are read.
 */
const FALLBACKS: Fallback[] = [
  {
    regular: noto('sc', '400Regular'),
    bold: noto('sc', '700Bold'),
    likely: /[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]|[\ud840-\ud87f][\udc00-\udfff]/,
  },
  { regular: noto('kr', '400Regular'), bold: noto('kr', '700Bold'), likely: /[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff]/ },
];

/** The fonts to try for text in a face, in order: its own DejaVu face (Sans Mono, then Sans, for monospace), then the fallbacks. */
export function fontChain(face: Face, mono: boolean): FontFile[] {
  const bold = face === 'bold' || face === 'boldItalic';
  return [...(mono ? [MONO[face]] : []), SANS[face], ...FALLBACKS.map((fallback) => (bold ? fallback.bold : fallback.regular))];
}

/**
 * Reads the fonts a document is likely to use, in the background: DejaVu
 * always, a fallback when the HTML has characters of its scripts. Each file
 * is read once per process; later calls find it loaded.
 */
export async function loadFonts(html: string): Promise<void> {
  const files = [...Object.values(SANS), ...Object.values(MONO)];
  await Promise.all(files.map((file) => file.load()));
  const needed = FALLBACKS.filter((fallback) => fallback.likely.test(html)).flatMap((fallback) => [fallback.regular, fallback.bold]);
  await Promise.all(needed.map((file) => file.load()));
}
