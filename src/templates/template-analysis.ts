import type { Liquid } from 'liquidjs';
import { fromLiquid, toLiquid } from './template-engine';

export interface TemplateAnalysis {
  /** Set when the template does not parse; a message for people, with `$` roots restored. */
  error?: string;
  /** Each variable reference as its path of segments, `['fetch', 'body', 'items', 0]`, roots as written (`$env`). */
  references: Array<Array<string | number>>;
}

/** Parses a template once and lists the variables it reads, without rendering anything. */
export function analyzeTemplate(liquid: Liquid, template: string): TemplateAnalysis {
  try {
    const parsed = liquid.parse(toLiquid(template));
    const references = liquid
      .globalVariableSegmentsSync(parsed)
      .map((segments) => segments.map((s) => (typeof s === 'string' ? fromLiquid(s) : s)) as Array<string | number>);
    return { references };
  } catch (err) {
    // liquidjs messages carry "line:1, col:4" and, for some errors, the template excerpt; keep the first line.
    return { error: fromLiquid(String((err as Error).message).split('\n')[0]), references: [] };
  }
}
