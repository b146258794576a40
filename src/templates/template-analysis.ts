import type { Liquid } from 'liquidjs';
import { CONNECTIONS_ROOT, ENV_ROOT, fromLiquid, MAX_TEMPLATE_LENGTH, templateMessage, toLiquid } from './template-engine';

export interface TemplateAnalysis {
  /** Set when the template does not parse; a message for people, with `$` roots restored. */
  error?: string;
  /** Each variable reference as its path of segments, `['fetch', 'body', 'items', 0]`, roots as written (`$env`). */
  references: Array<Array<string | number>>;
}

/** What a template reads of `$env` (named keys, or all of them when it reads `$env` as a whole or by a computed key) and of `$connections`. */
export interface DollarNeeds {
  env: string[] | 'all';
  connections: string[];
}

type Segments = Array<string | number | unknown[]>;

/**
 * Parses a template once and lists the variables it reads, without rendering
 * anything. Linear in the template's length, and refuses anything longer than
 * liquidjs would parse before scanning it.
 */
export function analyzeTemplate(liquid: Liquid, template: string): TemplateAnalysis {
  if (template.length > MAX_TEMPLATE_LENGTH) return { error: `it is longer than the ${MAX_TEMPLATE_LENGTH}-character limit`, references: [] };
  try {
    const parsed = liquid.parse(toLiquid(template));
    const segments = liquid.globalVariableSegmentsSync(parsed) as Segments[];
    // A computed segment (`a[b.c]`) stays an array: it names no fixed key.
    const references = segments.map((path) => path.map((s) => (typeof s === 'string' ? fromLiquid(s) : s)) as Array<string | number>);
    return { references };
  } catch (err) {
    return { error: templateMessage(String((err as Error).message)), references: [] };
  }
}

/**
 * The `$env` keys and `$connections` names a template names. A connection is
 * always named (`$connections.crm`): a computed name could reach any
 * connection of the organization, so it is refused.
 */
export function dollarNeeds(references: Segments[]): DollarNeeds {
  const env = new Set<string>();
  let allEnv = false;
  const connections = new Set<string>();
  for (const [root, first] of references) {
    if (root === ENV_ROOT) {
      if (typeof first === 'string') env.add(first);
      else allEnv = true;
    } else if (root === CONNECTIONS_ROOT) {
      if (typeof first !== 'string') throw new Error('$connections must be followed by a connection name, such as $connections.crm');
      connections.add(first);
    }
  }
  return { env: allEnv ? 'all' : [...env], connections: [...connections] };
}
