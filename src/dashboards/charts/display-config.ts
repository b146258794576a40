/**
 * The displayConfig keys drawing reads. displayConfig is stored as sent
 * (interface.md 2.5 shows `{legend: {show}}`); anything else in it is left
 * alone, and a key of the wrong type counts as absent.
 */
export interface DisplaySettings {
  /** `legend.show`: true always shows the legend, false never; absent: shown when there are two series or more (pie: always). */
  legend?: boolean;
  /** `stacked`: stack the series (area: stacked unless false; bar: side by side unless true; line: never unless true). */
  stacked?: boolean;
  /** `currency`: ISO 4217 code for measures whose format is `currency` (default USD). */
  currency?: string;
}

export function displaySettings(config: Record<string, unknown> | undefined): DisplaySettings {
  const c = config ?? {};
  const legend = c.legend !== null && typeof c.legend === 'object' ? (c.legend as Record<string, unknown>).show : undefined;
  return {
    legend: typeof legend === 'boolean' ? legend : undefined,
    stacked: typeof c.stacked === 'boolean' ? c.stacked : undefined,
    currency: typeof c.currency === 'string' && /^[A-Z]{3}$/.test(c.currency) ? c.currency : undefined,
  };
}
