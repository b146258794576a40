import { type Finding, RULES, type RuleId, type Severity, type ValidationResult } from './rules';

/** Longest piece of the input a message or path repeats: a name of megabytes is cut, never echoed. */
export const MAX_ECHO = 100;
/** Findings listed per widget and per list (errors, warnings) before the rest is summed up in one. */
export const MAX_FINDINGS_PER_WIDGET = 25;
export const MAX_FINDINGS = 1_000;

/** A piece of the input as a message shows it: quoted, escaped, and at most MAX_ECHO characters. */
export function quote(value: unknown): string {
  const text = typeof value === 'string' ? value : describe(value);
  return JSON.stringify(text.length > MAX_ECHO ? `${text.slice(0, MAX_ECHO)}…` : text);
}

/** What a value is, for "expected …, received …" messages. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  return typeof value === 'number' || typeof value === 'boolean' ? `${typeof value} ${String(value)}` : typeof value;
}

export type PathSegment = string | number;

/** `['widgets', 2, 'queryConfig', 'order', 'ds_x.amount']` → `widgets[2].queryConfig.order["ds_x.amount"]`. */
export function formatPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment) && segment.length <= MAX_ECHO) out += out === '' ? segment : `.${segment}`;
    else out += `[${quote(segment)}]`;
  }
  return out;
}

/** The findings of one widget (or of the body), with their severity taken from the rule table. */
export class WidgetFindings {
  readonly list: Finding[] = [];

  constructor(readonly widget: number | null) {}

  add(ruleId: RuleId, message: string, path?: readonly PathSegment[]): void {
    const finding: Finding = { ruleId, severity: RULES[ruleId].severity, widget: this.widget, message };
    if (path) finding.path = formatPath(path);
    this.list.push(finding);
  }
}

/**
 * Collects every widget's findings into the answer. `ok` counts every error,
 * also those past the caps; the lists stop at the caps with one
 * `findings-truncated` finding saying how many more there were.
 */
export class Report {
  private errors: Finding[] = [];
  private warnings: Finding[] = [];
  private errorCount = 0;
  private hidden = { error: 0, warning: 0 };

  addAll(findings: WidgetFindings): void {
    for (const severity of ['error', 'warning'] as const) {
      const own = findings.list.filter((f) => f.severity === severity);
      if (severity === 'error') this.errorCount += own.length;
      const target = severity === 'error' ? this.errors : this.warnings;
      const shown = own.slice(0, MAX_FINDINGS_PER_WIDGET);
      const room = Math.max(0, MAX_FINDINGS - target.length);
      target.push(...shown.slice(0, room));
      const cut = own.length - Math.min(shown.length, room);
      if (cut > 0 && shown.length <= room) {
        // This widget alone went past its cap: say so next to its findings.
        target.push(truncated(severity, findings.widget, cut));
      } else this.hidden[severity] += cut;
    }
  }

  result(): ValidationResult {
    const close = (list: Finding[], severity: Severity) => (this.hidden[severity] > 0 ? [...list, truncated(severity, null, this.hidden[severity])] : list);
    return { ok: this.errorCount === 0, errors: close(this.errors, 'error'), warnings: close(this.warnings, 'warning') };
  }
}

function truncated(severity: Severity, widget: number | null, count: number): Finding {
  const what = severity === 'error' ? (count === 1 ? 'error' : 'errors') : count === 1 ? 'warning' : 'warnings';
  const where = widget === null ? 'in this request' : 'for this widget';
  return { ruleId: 'findings-truncated', severity, widget, message: `${count} more ${what} ${where} ${count === 1 ? 'is' : 'are'} not listed` };
}
