import { Parser } from 'htmlparser2';
import { PdfInputTooLarge } from './pdf-errors';
import type { PdfLimits } from './pdf-limits';

/** An element of the parsed HTML: lower-case tag and attribute names, text children merged. */
export interface HtmlElement {
  tag: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
}

/** A text node is its decoded text. */
export type HtmlNode = HtmlElement | string;

export const isElement = (node: HtmlNode): node is HtmlElement => typeof node !== 'string';

/**
 * Elements whose content is never shown: scripts and styles (no script runs and
 * no style sheet is read), the document head, and embedded browsing contexts
 * or media the renderer cannot draw. They still count towards `maxElements`.
 */
const DROPPED = new Set([
  'script',
  'style',
  'template',
  'head',
  'title',
  'noscript',
  'iframe',
  'object',
  'embed',
  'audio',
  'video',
  'canvas',
  'link',
  'meta',
  'base',
]);

/** How much HTML one synchronous parser step takes before the event loop gets a turn. */
const CHUNK_CHARS = 256 * 1024;

const nextTick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Parses `html` with htmlparser2 (forgiving: any input gives a tree) into a
 * light tree under a synthetic root, in chunks so a large document does not
 * hold the event loop. Counts elements, nesting depth and the elements of each
 * `<svg>` as they open, and throws `PdfInputTooLarge` at the first one past
 * its bound, before the rest is read.
 */
export async function parseHtml(html: string, limits: PdfLimits): Promise<HtmlElement> {
  const root: HtmlElement = { tag: '#root', attrs: {}, children: [] };
  const open: HtmlElement[] = [root];
  let elements = 0;
  // Depth inside dropped elements, and the open <svg> with its element count.
  let dropped = 0;
  let svgDepth = 0;
  let svgElements = 0;

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        elements++;
        if (elements > limits.maxElements) {
          throw new PdfInputTooLarge('maxElements', `The HTML has more than ${limits.maxElements} elements`);
        }
        if (open.length + dropped > limits.maxDepth) {
          throw new PdfInputTooLarge('maxDepth', `The HTML nests elements more than ${limits.maxDepth} deep`);
        }
        if (svgDepth > 0 || name === 'svg') {
          if (svgDepth === 0) svgElements = 0;
          svgDepth++;
          svgElements++;
          if (svgElements > limits.maxSvgElements) {
            throw new PdfInputTooLarge('maxSvgElements', `An <svg> has more than ${limits.maxSvgElements} elements`);
          }
        }
        if (dropped > 0 || DROPPED.has(name)) {
          dropped++;
          return;
        }
        const element: HtmlElement = { tag: name, attrs: attribs, children: [] };
        open[open.length - 1].children.push(element);
        open.push(element);
      },
      onclosetag() {
        if (svgDepth > 0) svgDepth--;
        if (dropped > 0) dropped--;
        else if (open.length > 1) open.pop();
      },
      ontext(text) {
        if (dropped > 0) return;
        const children = open[open.length - 1].children;
        const last = children.length - 1;
        if (last >= 0 && typeof children[last] === 'string') children[last] += text;
        else children.push(text);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );

  for (let start = 0; start < html.length; start += CHUNK_CHARS) {
    parser.write(html.slice(start, start + CHUNK_CHARS));
    if (start + CHUNK_CHARS < html.length) await nextTick();
  }
  parser.end();
  return root;
}

/** The text of a subtree, as is (whitespace not collapsed). */
export function textContent(node: HtmlNode): string {
  if (typeof node === 'string') return node;
  let text = '';
  for (const child of node.children) text += textContent(child);
  return text;
}
