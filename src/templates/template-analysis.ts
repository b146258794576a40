import type { Liquid } from 'liquidjs';
import { CONNECTIONS_ROOT, ENV_ROOT, fromLiquid, MAX_TEMPLATE_LENGTH, RESUME_ROOT, templateMessage, toLiquid } from './template-engine';

export interface TemplateAnalysis {
  /** Why the template cannot be used, as a message for people with `$` roots restored: too long, does not parse, or reads `$connections` without a name. */
  error?: string;
  /** Each variable reference as its path of segments, `['fetch', 'body', 'items', 0]`, roots as written (`$env`). */
  references: Array<Array<string | number>>;
}

/** What a template reads of `$env` (named keys, or all of them when it reads `$env` as a whole or by a computed key), of `$connections` and of `$resume` (wait step ids). */
export interface DollarNeeds {
  env: string[] | 'all';
  connections: string[];
  resume: string[];
  /** Whether it reads `initial`, the run's input: loaded only for templates that do (a loop's items need not reload it each). */
  initial: boolean;
}

type Segments = Array<string | number | unknown[]>;

/**
 * Parses a template once and lists the variables it reads, without rendering
 * anything. Linear in the template's length, and refuses anything longer than
 * liquidjs would parse before scanning it.
 */
export function analyzeTemplate(liquid: Liquid, template: string): TemplateAnalysis {
  if (template.length > MAX_TEMPLATE_LENGTH) return { error: `template is longer than the ${MAX_TEMPLATE_LENGTH}-character limit`, references: [] };
  let segments: Segments[];
  try {
    segments = liquid.globalVariableSegmentsSync(liquid.parse(toLiquid(template))) as Segments[];
  } catch (err) {
    return { error: `template does not parse: ${templateMessage(String((err as Error).message))}`, references: [] };
  }
  try {
    dollarNeeds(segments);
  } catch (err) {
    return { error: (err as Error).message, references: [] };
  }
  // A computed segment (`a[b.c]`) stays an array: it names no fixed key.
  const references = segments.map((path) => path.map((s) => (typeof s === 'string' ? fromLiquid(s) : s)) as Array<string | number>);
  return { references };
}

/**
 * The `$env` keys, `$connections` names and `$resume` steps a template
 * names. A connection is always named (`$connections.crm`): a computed name
 * could reach any connection of the organization, so it is refused; so is
 * a computed resume link.
 */
export function dollarNeeds(references: Segments[]): DollarNeeds {
  const env = new Set<string>();
  let allEnv = false;
  const connections = new Set<string>();
  const resume = new Set<string>();
  let initial = false;
  for (const [root, first] of references) {
    if (root === 'initial') initial = true;
    if (root === ENV_ROOT) {
      if (typeof first === 'string') env.add(first);
      else allEnv = true;
    } else if (root === CONNECTIONS_ROOT) {
      if (typeof first !== 'string') throw new Error('reads $connections without naming a connection: write $connections.<name>');
      connections.add(first);
    } else if (root === RESUME_ROOT) {
      // A computed name could reach a link the definition never meant to send.
      if (typeof first !== 'string') throw new Error('reads $resume without naming a wait step: write $resume.<stepId>');
      resume.add(first);
    }
  }
  return { env: allEnv ? 'all' : [...env], connections: [...connections], resume: [...resume], initial };
}
