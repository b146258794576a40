import { distance } from 'fastest-levenshtein';
import type { MetaEntry } from '../../analytics/analytics.schemas';

/** A member of the organization's model, as the analytics metadata lists it. */
export interface CatalogMember {
  name: string;
  /** The source alias (`ds_…`) and the field, lower-cased for comparisons. */
  alias: string;
  lowerName: string;
  lowerField: string;
  kind: 'measure' | 'dimension';
  /** `number`, `string` or `time`. */
  type: string;
}

/** Of the widget's own source, at most this many members are compared; of the organization's, this many in all. */
const MAX_OWN_CANDIDATES = 1_000;
const MAX_CANDIDATES = 3_000;
/** Distinct names one catalog (one request) computes a hint for; later ones get none. */
const MAX_HINTS = 100;
/** Names longer than this are compared by their first characters only. */
const MAX_COMPARED = 100;

/**
 * The organization's members (from AnalyticsService.meta) for lookups and
 * did-you-mean hints. One per request: it caches hints, and bounds the work
 * they take whatever the input (a bounded candidate list, a bounded number
 * of names, names cut to MAX_COMPARED characters).
 */
export class MemberCatalog {
  private readonly members = new Map<string, CatalogMember>();
  private readonly byAlias = new Map<string, CatalogMember[]>();
  private readonly firsts: CatalogMember[] = [];
  private readonly hints = new Map<string, string | undefined>();

  constructor(meta: readonly MetaEntry[]) {
    for (const entry of meta) {
      const add = (m: MetaEntry['measures'][number], kind: CatalogMember['kind']) => {
        if (typeof m?.name !== 'string' || this.members.has(m.name)) return;
        const dot = m.name.indexOf('.');
        const member: CatalogMember = {
          name: m.name,
          alias: dot >= 0 ? m.name.slice(0, dot) : entry.name,
          lowerName: m.name.toLowerCase(),
          lowerField: (dot >= 0 ? m.name.slice(dot + 1) : m.name).toLowerCase(),
          kind,
          type: m.type,
        };
        this.members.set(m.name, member);
        const own = this.byAlias.get(member.alias) ?? [];
        if (own.length < MAX_OWN_CANDIDATES) own.push(member);
        this.byAlias.set(member.alias, own);
        if (this.firsts.length < MAX_CANDIDATES) this.firsts.push(member);
      };
      for (const m of entry.measures ?? []) add(m, 'measure');
      for (const m of entry.dimensions ?? []) add(m, 'dimension');
    }
  }

  get(name: string): CatalogMember | undefined {
    return this.members.get(name);
  }

  /** A time dimension of the source with this alias, for examples in messages. */
  timeDimensionOf(alias: string): string | undefined {
    return this.byAlias.get(alias)?.find((m) => m.kind === 'dimension' && m.type === 'time')?.name;
  }

  /**
   * The real member closest to an unknown name by edit distance, or none
   * close enough. Both the whole qualified name (a typo anywhere) and the
   * field part alone (the right field under a wrong or missing source
   * alias) are compared, case-insensitively; the closer counts, and it must
   * be within about 40% of the field's length. Members of the widget's own
   * source win: another source's member must be closer by more than one
   * edit to be offered instead.
   */
  suggest(unknown: string, ownAlias?: string): string | undefined {
    const key = `${ownAlias ?? ''}\u0000${unknown.slice(0, MAX_COMPARED)}`;
    if (this.hints.has(key)) return this.hints.get(key);
    if (this.hints.size >= MAX_HINTS) return undefined;
    const hint = this.closest(unknown.slice(0, MAX_COMPARED).toLowerCase(), ownAlias);
    this.hints.set(key, hint);
    return hint;
  }

  private closest(wanted: string, ownAlias: string | undefined): string | undefined {
    const dot = wanted.indexOf('.');
    const alias = dot >= 0 ? wanted.slice(0, dot) : undefined;
    const field = dot >= 0 ? wanted.slice(dot + 1) : wanted;
    const threshold = field.length <= 2 ? 1 : Math.max(2, Math.floor(field.length * 0.4));
    const own = ownAlias ? (this.byAlias.get(ownAlias) ?? []) : [];
    const others = this.firsts.filter((m) => m.alias !== ownAlias);
    let best: { member: CatalogMember; score: number; whole: number } | undefined;
    for (const member of [...own, ...others]) {
      // |a| - |b| bounds the distance from below: skip what cannot be close enough.
      const byField = Math.abs(member.lowerField.length - field.length) <= threshold ? distance(field, member.lowerField) : Infinity;
      // The whole name matters when the dot is missing or misplaced; a typo in the alias alone shows in the field part.
      const compareWhole = alias === undefined || member.alias.toLowerCase() === alias || member.alias === ownAlias;
      const whole = compareWhole && Math.abs(member.lowerName.length - wanted.length) <= threshold ? distance(wanted, member.lowerName) : Infinity;
      const d = Math.min(byField, whole);
      if (d > threshold) continue;
      const score = d + (ownAlias && member.alias !== ownAlias ? 1.5 : 0);
      if (!best || score < best.score || (score === best.score && (whole < best.whole || (whole === best.whole && member.name < best.member.name)))) {
        best = { member, score, whole };
      }
    }
    return best?.member.name;
  }
}
