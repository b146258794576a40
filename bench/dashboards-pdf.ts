/**
 * `node --import tsx bench/dashboards-pdf.ts`: the PDF part of
 * `npm run bench:dashboards` alone (bench/lib/dashboard-pdf.ts): a 50-widget
 * dashboard (20 SVG charts, a 2,000-row table) rendered 10 times, beside
 * pdfkit writing the same text with no layout. It needs no database.
 * Knob: BENCH_RUNS (10). Results: bench-results/dashboards-pdf-<time>.json.
 */
import { runPdfBenchmark } from './lib/dashboard-pdf';
import { saveResults } from './lib/results';

const RUNS = Number(process.env.BENCH_RUNS ?? 10);

runPdfBenchmark(RUNS).then(
  (figures) => console.log(`  written to ${saveResults('dashboards-pdf', figures)}`),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
