const PLACEHOLDER = /\{([^{}]*)\}/g;

const count = (layout: string, name: string) => layout.split(`{${name}}`).length - 1;

/**
 * Why a generic HMAC payload layout cannot be used, or undefined when it can.
 * A timestamp header that the layout does not sign would be refused only for
 * being late, never for being forged, so it must appear in the layout.
 */
export function layoutProblem(layout: string, hasTimestampHeader: boolean): string | undefined {
  const unknown = [...layout.matchAll(PLACEHOLDER)].map((m) => m[0]).find((p) => p !== '{body}' && p !== '{timestamp}');
  if (unknown) return `may contain only the placeholders {body} and {timestamp}, not ${unknown}`;
  if (count(layout, 'body') !== 1) return 'must contain {body} exactly once';
  const timestamps = count(layout, 'timestamp');
  if (!hasTimestampHeader && timestamps > 0) return 'may contain {timestamp} only when timestampHeader is set';
  if (hasTimestampHeader && timestamps !== 1) return 'must contain {timestamp} exactly once when timestampHeader is set (an unsigned timestamp proves nothing)';
  return undefined;
}

/**
 * The bytes a layout stands for, in order. The body goes in as the bytes
 * received (never decoded and re-encoded), and is not searched for
 * placeholders: only the layout's own text is.
 */
export function renderLayout(layout: string, timestamp: string | undefined, body: Buffer): Buffer[] {
  const [before, after] = layout.split('{body}');
  const fill = (text: string) => Buffer.from(text.replace('{timestamp}', timestamp ?? ''), 'utf8');
  return [fill(before), body, fill(after ?? '')];
}
