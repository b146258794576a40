import type { Rgba, TextAlign } from './css-style';
import type { HtmlElement } from './html-tree';
import type { CheckedImage } from './image-source';

/** How a piece of text is drawn. Sizes in points. */
export interface TextStyle {
  bold: boolean;
  italic: boolean;
  mono: boolean;
  underline: boolean;
  strike: boolean;
  fontSize: number;
  color: Rgba;
}

/** A stretch of text in one style; `\n` is a line break. */
export interface Run {
  text: string;
  style: TextStyle;
}

/** What every block shares: its left indent and the space above it (collapsed CSS margins), in points. */
interface BlockBase {
  indent: number;
  spaceBefore: number;
}

export interface TextBlock extends BlockBase {
  kind: 'text';
  runs: Run[];
  align: TextAlign;
  /** A list item's bullet or number, drawn in the indent left of the first line. */
  marker?: Run;
  /** Headings move to the next page rather than end one. */
  keepWithNext: boolean;
}

export interface TableCell {
  /** The cell's text in its inline styles (`<b style="font-size:28pt">` inside a cell keeps its size); `\n` is a line break. */
  runs: Run[];
  /** The cell's own style: of an empty line, and what its runs inherit. */
  style: TextStyle;
  align: TextAlign;
  colspan: number;
  background?: Rgba;
}

export interface TableBlock extends BlockBase {
  kind: 'table';
  /** Rows repeated at the top of every page the table reaches. */
  header: TableCell[][];
  body: TableCell[][];
  columns: number;
}

export interface SvgBlock extends BlockBase {
  kind: 'svg';
  element: HtmlElement;
  /** The size it is drawn at, in points, before fitting to the page. */
  width: number;
  height: number;
  align: TextAlign;
}

export interface ImageBlock extends BlockBase {
  kind: 'image';
  image: CheckedImage;
  width: number;
  height: number;
  align: TextAlign;
}

export interface RuleBlock extends BlockBase {
  kind: 'rule';
}

export interface PageBreakBlock extends BlockBase {
  kind: 'page-break';
}

export type Block = TextBlock | TableBlock | SvgBlock | ImageBlock | RuleBlock | PageBreakBlock;
