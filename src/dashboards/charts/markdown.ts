import MarkdownIt from 'markdown-it';

/**
 * The Markdown of a text tile (chart type `text`, `displayConfig.markdown`)
 * as HTML, for the console's tile and the report PDF alike, so both show the
 * same thing. The Markdown is written by any dashboard editor and shown to
 * every viewer on the console's origin, so it is untrusted:
 * - raw HTML is off: `<script>` and any other tag come out as text;
 * - a link keeps its href only when it is http(s), mailto or relative
 *   (`javascript:`, `data:`, `vbscript:`… stay as plain text), and opens in
 *   a new tab without access to this page;
 * - images are off: a tile may not make every viewer's browser fetch a URL
 *   its author chose (and the PDF renderer does not fetch them either).
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
md.disable('image');

const SAFE_SCHEME = /^(https?|mailto):/i;
const ANY_SCHEME = /^[a-z][a-z0-9+.-]*:/i;

md.validateLink = (url: string): boolean => {
  // Control characters and spaces could hide a scheme from the check ("java\tscript:"); browsers strip them.
  const plain = [...url].filter((c) => c.charCodeAt(0) > 0x20 && c.charCodeAt(0) !== 0x7f).join('');
  return SAFE_SCHEME.test(plain) || !ANY_SCHEME.test(plain);
};

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet('target', '_blank');
  tokens[idx].attrSet('rel', 'noopener noreferrer nofollow');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

/** The longest Markdown rendered (displayConfig is at most 16 KB as JSON, so this is never reached by a saved tile). */
const MAX_MARKDOWN = 20_000;

/** `markdown` as safe HTML (see above); anything but a string renders as nothing. */
export function renderMarkdown(markdown: unknown): string {
  if (typeof markdown !== 'string') return '';
  return md.render(markdown.slice(0, MAX_MARKDOWN));
}

/** A text tile's Markdown, from its displayConfig. */
export const tileMarkdown = (displayConfig: Record<string, unknown> | null | undefined): string =>
  typeof displayConfig?.markdown === 'string' ? displayConfig.markdown : '';
