import { numberFormatter, type ValueFormatter } from './number-format';
import { timeLabel } from './time-labels';
import type { ChartWidget, MemberAnnotation, ResultAnnotation, ViewOptions } from './types';

/** One column of a widget's answer: where rows hold it, what it is called and how its values are written. */
export interface Field {
  /** The row key: `ds_….amount`, or `ds_….at.day` for a time dimension with a granularity. */
  key: string;
  kind: 'measure' | 'dimension' | 'time';
  label: string;
  /** Numbers (measures, number dimensions) are drawn and aligned as numbers. */
  numeric: boolean;
  granularity?: string;
  format: ValueFormatter;
}

/** The fields of a widget's answer, in the order of its query: dimensions, time dimensions with a granularity, measures (as CSV export orders them). */
export interface Fields {
  dimensions: Field[];
  times: Field[];
  measures: Field[];
}

/** `ds_….unit_price` → `unit_price`: the label of a member the annotation does not describe. */
const shortName = (member: string) => member.slice(member.indexOf('.') + 1);

const labelOf = (a: MemberAnnotation | undefined, member: string) => a?.shortTitle || a?.title || shortName(member);

export function widgetFields(widget: ChartWidget, annotation: ResultAnnotation | undefined, opts: ViewOptions, currency?: string): Fields {
  const locale = opts.locale ?? 'en-US';
  const q = widget.queryConfig;
  const measures = (q.measures ?? []).map((key): Field => {
    const a = annotation?.measures?.[key];
    return { key, kind: 'measure', label: labelOf(a, key), numeric: true, format: numberFormatter(a, locale, currency) };
  });
  const dimensions = (q.dimensions ?? []).map((key): Field => {
    const a = annotation?.dimensions?.[key];
    if (a?.type === 'time')
      return { key, kind: 'dimension', label: labelOf(a, key), numeric: false, format: (v) => timeLabel(v, undefined, opts.timeZone, locale) };
    if (a?.type === 'number') return { key, kind: 'dimension', label: labelOf(a, key), numeric: true, format: numberFormatter(a, locale, currency) };
    return { key, kind: 'dimension', label: labelOf(a, key), numeric: false, format: (v) => (v === null || v === undefined ? '—' : String(v)) };
  });
  const times = (q.timeDimensions ?? [])
    .filter((t): t is { dimension: string; granularity: string } => typeof t.granularity === 'string')
    .map((t): Field => {
      const key = `${t.dimension}.${t.granularity}`;
      const a = annotation?.timeDimensions?.[key] ?? annotation?.dimensions?.[t.dimension];
      // Cube's shortTitle of `at.day` is "At day"-like already; fall back to "<field> (<granularity>)" as CSV export heads it.
      const label = a?.shortTitle || a?.title || `${shortName(t.dimension)} (${t.granularity})`;
      return { key, kind: 'time', label, numeric: false, granularity: t.granularity, format: (v) => timeLabel(v, t.granularity, opts.timeZone, locale) };
    });
  return { dimensions, times, measures };
}
