import type { Readable } from 'node:stream';
import { widgetView } from './charts';
import { renderMarkdown, tileMarkdown } from './charts/markdown';
import { chartSvg } from './charts/svg-render';
import { renderInTurn } from './dashboard-pdf.service';
import type { DashboardsService } from './dashboards.service';
import type { WidgetDataInput } from './dashboards.schemas';
import { pdfFileName, type PdfPageSize, renderPdf } from './pdf';
import { type ChartDrawer, reportHtml, type ReportTile } from './report-html';
import { checkFilterValues, type WidgetDataService } from './widget-data.service';
import { isDataWidget } from './widget-sources';

export interface ReportRequest extends WidgetDataInput {
  pageSize: PdfPageSize;
  landscape: boolean;
}

/**
 * GET/POST /dashboards/{id}/report.pdf: the stored dashboard printed with
 * fresh data. Its widgets run through WidgetDataService.dashboard (the path
 * of POST /dashboards/{id}/data: the same filters, zone, queue and per-widget
 * errors), each answer becomes a view (charts/widget-view.ts, as the console
 * draws it), charts are drawn to SVG by ECharts, and the page goes through the
 * one PDF renderer. All of it runs in one of the render slots shared with
 * export-pdf, from the data call on: the slots and their 429 bound limit the
 * queries and the chart drawing as well as the PDF.
 */
export class DashboardReportService {
  constructor(
    private readonly dashboards: Pick<DashboardsService, 'getWithWidgets'>,
    private readonly widgetData: Pick<WidgetDataService, 'dashboard'>,
    private readonly now: () => Date = () => new Date(),
    private readonly drawChart: ChartDrawer = chartSvg,
  ) {}

  /**
   * Hands `write` the Content-Disposition value and the PDF stream. An unknown
   * dashboard (404) or filter id (400) fails before waiting for a slot; a
   * caller that left while waiting, or while its widgets ran, is not drawn for.
   */
  async report(
    organizationId: string,
    dashboardId: string,
    request: ReportRequest,
    write: (disposition: string, pdf: Readable) => Promise<void>,
    callerLeft: () => boolean = () => false,
  ): Promise<void> {
    const { dashboard } = await this.dashboards.getWithWidgets(organizationId, dashboardId);
    checkFilterValues(dashboard, request);
    await renderInTurn(callerLeft, async () => {
      // Read again in the slot: the wait may have been long, and the data call reads it too.
      const { dashboard, widgets } = await this.dashboards.getWithWidgets(organizationId, dashboardId);
      const data = await this.widgetData.dashboard(organizationId, dashboardId, { filters: request.filters, timezone: request.timezone });
      if (callerLeft()) return;
      const generatedAt = this.now();
      const byId = new Map(widgets.map((w) => [w.id, w]));
      const entries = new Map(data.widgets.map((e) => [e.widgetId, e]));
      const tiles: ReportTile[] = [];
      // The grid decides what is printed: a widget left out of the layout is not on the dashboard either.
      for (const item of dashboard.layout) {
        const widget = byId.get(item.widgetId);
        if (!widget) continue;
        // A text tile has no data entry: its Markdown is printed as it is rendered in the console.
        if (!isDataWidget(widget)) {
          tiles.push({ item, widget, view: { kind: 'text', html: renderMarkdown(tileMarkdown(widget.displayConfig)) } });
          continue;
        }
        const entry = entries.get(item.widgetId);
        if (!entry) continue;
        tiles.push({ item, widget, view: widgetView(widget, entry, { timeZone: data.timezone }) });
      }
      const filters = dashboard.filterConfig.map((f) => ({ label: f.label || f.id, values: request.filters?.[f.id] ?? dashboard.filterDefaults[f.id] ?? [] }));
      const header = { title: dashboard.name, timeZone: data.timezone, generatedAt: isoInZone(generatedAt, data.timezone), filters };
      const html = await reportHtml(header, tiles, this.drawChart);
      const pdf = await renderPdf(html, { title: dashboard.name, landscape: request.landscape, pageSize: request.pageSize });
      await write(pdfFileName(undefined, dashboard.name), pdf);
    });
  }
}

/** An instant as ISO 8601 in a zone, with its offset: `2026-03-10T14:05:09+01:00`. */
export function isoInZone(at: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offset = Math.round((wall - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const mm = String(Math.abs(offset) % 60).padStart(2, '0');
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${offset === 0 ? 'Z' : `${sign}${hh}:${mm}`}`;
}
