import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import { TooManyRequestsError, ValidationError } from '../errors/errors';
import { chartSvg } from './charts/svg-render';
import { PDF_RENDERS_AT_ONCE, PDF_RENDERS_WAITING, renderInTurn } from './dashboard-pdf.service';
import { DashboardReportService, type ReportRequest } from './dashboard-report.service';
import type { Dashboard } from './dashboard.entity';
import type { DashboardWidget } from './dashboard-widget.entity';
import { collect, inspectPdf } from './pdf/testing/pdf-inspect';
import type { WidgetDataService, WidgetEntry } from './widget-data.service';

/**
 * The report service over a fake dashboard and a fake WidgetDataService:
 * when the widgets run (only in a render slot), and which charts are drawn.
 */

const REQUEST: ReportRequest = { pageSize: 'A4', landscape: true };

const widget = (id: string, chartType: string): DashboardWidget =>
  ({ id, title: `Widget ${id}`, chartType, queryConfig: { measures: ['s.amount'], dimensions: ['s.day'] }, displayConfig: {} }) as unknown as DashboardWidget;

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ 's.day': `d${i}`, 's.amount': i }));

/** A service over one dashboard of `entries` (a widget and its answer's rows each, laid out one under the other). */
function setup(entries: Array<{ widget: DashboardWidget; rows: number }> = []) {
  const widgets = entries.map((e) => e.widget);
  const dashboard = {
    id: 'd1',
    name: 'Sales',
    layout: widgets.map((w, i) => ({ widgetId: w.id, x: 0, y: i * 4, w: 12, h: 4 })),
    filterConfig: [{ id: 'region', label: 'Region' }],
    filterDefaults: {},
    timezone: 'UTC',
  } as unknown as Dashboard;
  const dataCalls = jest.fn(async (): Promise<{ timezone: string; widgets: WidgetEntry[] }> => ({
    timezone: 'UTC',
    widgets: entries.map((e) => ({ widgetId: e.widget.id, data: rows(e.rows), annotation: {} }) as unknown as WidgetEntry),
  }));
  const draw = jest.fn(chartSvg);
  const service = new DashboardReportService(
    { getWithWidgets: async () => ({ dashboard, widgets }) },
    { dashboard: dataCalls } as Pick<WidgetDataService, 'dashboard'>,
    undefined,
    draw,
  );
  const written: Buffer[] = [];
  const write = async (_disposition: string, pdf: Readable) => {
    written.push(await collect(pdf));
  };
  return { service, dataCalls, draw, written, write };
}

/** The process's render slots, all taken until `release` is called. */
function holdSlots() {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const holders = Array.from({ length: PDF_RENDERS_AT_ONCE }, () =>
    renderInTurn(
      () => false,
      () => held,
    ),
  );
  return {
    release: async () => {
      release();
      await Promise.all(holders);
    },
  };
}

const settle = async () => {
  for (let i = 0; i < 5; i++) await nextTurn();
};

describe('DashboardReportService.report', () => {
  it('runs the widgets only once it has a render slot', async () => {
    const { service, dataCalls, written, write } = setup();
    const slots = holdSlots();
    const report = service.report('o1', 'd1', REQUEST, write);
    await settle();
    expect(dataCalls).not.toHaveBeenCalled();
    await slots.release();
    await report;
    expect(dataCalls).toHaveBeenCalledTimes(1);
    expect(written).toHaveLength(1);
  });

  it('does nothing for a caller that left while waiting', async () => {
    const { service, dataCalls, written, write } = setup();
    const slots = holdSlots();
    let left = false;
    const report = service.report('o1', 'd1', REQUEST, write, () => left);
    await settle();
    left = true;
    await slots.release();
    await report;
    expect(dataCalls).not.toHaveBeenCalled();
    expect(written).toHaveLength(0);
  });

  it('is 429 pdf_busy with PDF_RENDERS_WAITING already waiting, without running a widget', async () => {
    const { service, dataCalls, write } = setup();
    const slots = holdSlots();
    const waiting = Array.from({ length: PDF_RENDERS_WAITING }, () =>
      renderInTurn(
        () => false,
        async () => {},
      ),
    );
    await expect(service.report('o1', 'd1', REQUEST, write)).rejects.toMatchObject({ constructor: TooManyRequestsError, code: 'pdf_busy' });
    await slots.release();
    await Promise.all(waiting);
    expect(dataCalls).not.toHaveBeenCalled();
  });

  it('refuses an unknown filter id at once, without waiting for a slot', async () => {
    const { service, dataCalls, write } = setup();
    const slots = holdSlots();
    await expect(service.report('o1', 'd1', { ...REQUEST, filters: { nope: ['x'] } }, write)).rejects.toBeInstanceOf(ValidationError);
    await slots.release();
    expect(dataCalls).not.toHaveBeenCalled();
  });

  it('does not draw a chart over the point bound: its tile says so, the others are drawn', async () => {
    const { service, draw, written, write } = setup([
      { widget: widget('small', 'bar'), rows: 3 },
      { widget: widget('huge', 'bar'), rows: 6_000 },
    ]);
    await service.report('o1', 'd1', REQUEST, write);
    expect(draw).toHaveBeenCalledTimes(1);
    const text = (await inspectPdf(written[0], { draw: false })).pages.map((p) => p.text).join('\n');
    expect(text).toContain('Widget huge');
    expect(text).toContain('Too many points to print this chart');
    expect(text).toContain('d2');
  });
});
