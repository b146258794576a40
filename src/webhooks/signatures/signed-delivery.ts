/** A received webhook call, as much of it as a signature can cover. */
export interface SignedDelivery {
  /** The exact bytes received, before any parsing. */
  body: Buffer;
  /** Case-insensitive lookup, as Express's req.get. */
  header(name: string): string | undefined;
  /** The public URL the sender called, with its query string (Twilio signs it). */
  url: string;
  contentType?: string;
}
