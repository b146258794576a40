import { PdfInputInvalid } from './pdf-errors';
import { DEFAULT_PDF_LIMITS, type PdfLimits } from './pdf-limits';

/** Page sizes in PDF points (1/72 inch), portrait. */
export const PDF_PAGE_SIZES = {
  A4: [595.28, 841.89],
  Letter: [612, 792],
  Legal: [612, 1008],
} as const;

export type PdfPageSize = keyof typeof PDF_PAGE_SIZES;

export const PDF_PAGE_SIZE_NAMES = Object.keys(PDF_PAGE_SIZES) as PdfPageSize[];

export interface PdfRenderOptions {
  /** The PDF's Title metadata (what a viewer shows in its title bar); nothing is drawn. */
  title?: string;
  landscape?: boolean;
  /** Default `A4`. */
  pageSize?: PdfPageSize;
  /** Overrides of `DEFAULT_PDF_LIMITS`. */
  limits?: Partial<PdfLimits>;
}

export interface ResolvedPdfOptions {
  title: string | undefined;
  width: number;
  height: number;
  limits: PdfLimits;
}

/** Checks the options (the route's schema should already have) and fills the defaults. */
export function resolveOptions(options: PdfRenderOptions): ResolvedPdfOptions {
  const pageSize = options.pageSize ?? 'A4';
  if (!Object.hasOwn(PDF_PAGE_SIZES, pageSize)) {
    throw new PdfInputInvalid(`pageSize must be one of ${PDF_PAGE_SIZE_NAMES.join(', ')}`);
  }
  const [short, long] = PDF_PAGE_SIZES[pageSize];
  const title = typeof options.title === 'string' && options.title.trim() !== '' ? options.title.trim() : undefined;
  return {
    title,
    width: options.landscape ? long : short,
    height: options.landscape ? short : long,
    limits: { ...DEFAULT_PDF_LIMITS, ...options.limits },
  };
}
