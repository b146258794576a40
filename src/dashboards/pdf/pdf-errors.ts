import { AppError, ValidationError } from '../../errors/errors';
import type { PdfLimits } from './pdf-limits';

/**
 * 413 `pdf_input_too_large`: the HTML (or an image or chart in it) is past one
 * of the bounds in `PdfLimits`; `limit` names which. Thrown before any byte of
 * the PDF is written, so the route can still answer with a status.
 */
export class PdfInputTooLarge extends AppError {
  constructor(
    readonly limit: keyof PdfLimits,
    message: string,
  ) {
    super(413, 'pdf_input_too_large', message);
  }
}

/**
 * 400 `pdf_input_invalid`: input the renderer cannot honour and will not guess
 * at: options outside the documented set, or an image whose data URI claims
 * PNG or JPEG but whose bytes are broken.
 */
export class PdfInputInvalid extends ValidationError {
  constructor(message: string) {
    super(message, undefined, 'pdf_input_invalid');
  }
}
