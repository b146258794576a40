/**
 * `npm run bench:templates`: what a hostile definition costs the save-time
 * check (the schema, then every template parsed and its references checked),
 * beside a benign definition of the same size checked in the same run.
 *
 *   1. A 1 MB template of `{{{{…` without a closer (the finding: the old
 *      rewriting of `$env` scanned it quadratically, holding the event loop).
 *   2. 1 MB of openers each followed much later by one closer.
 *   3. A megabyte of such templates each just under the 100,000-character
 *      limit, so every one is scanned and parsed.
 *   4. Baseline: 1 MB of ordinary templates spread over many steps.
 *   5. The regular expression the rewriting replaced, on growing prefixes of
 *      (1), to show the growth that was removed (it is not run on 1 MB).
 *
 * Each hostile case must be refused (or pass) and print its time; the aim is
 * well under a second. Knob: BENCH_RUNS (5), the median is printed.
 */
import { createLiquid } from '../src/templates/template-engine';
import { checkDefinition } from '../src/workflows/definition-check';
import { WorkflowDefinition } from '../src/workflows/definition.schemas';
import { fmt } from './lib/stats';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const MB = 1024 * 1024;
const liquid = createLiquid();

/** The save-time check of POST /workflows: the schema, then the definition check. Issues found, and the median time. */
function timeCheck(definition: unknown): { issues: string[]; ms: number } {
  const times: number[] = [];
  let issues: string[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const parsed = WorkflowDefinition.safeParse(definition);
    issues = parsed.success
      ? checkDefinition(liquid, parsed.data).map((issue) => `${issue.path}: ${issue.message}`)
      : parsed.error.issues.map((issue) => issue.message);
    times.push(performance.now() - started);
  }
  return { issues, ms: times.sort((a, b) => a - b)[Math.floor(times.length / 2)] };
}

const returning = (body: unknown) => ({ stepId: 'answer', stepType: 'core.return', input: { webhookResponse: { statusCode: 200, body } } });

const hostile = '{{'.repeat(MB / 2);
/** Just under the per-template limit, so it is scanned and parsed; ten of them make a megabyte. */
const underLimit = '{{'.repeat(49_999);
const lateCloser = '{{ $env.A '.repeat(MB / 10) + '}}';
const benignSteps = Array.from({ length: 200 }, (_, i) => ({
  stepId: `s${i}`,
  stepType: 'core.http',
  input: {
    url: 'https://api.example.test/{{ initial.id }}',
    headers: { 'X-Key': '{{ $env.KEY }}' },
    body: Object.fromEntries(Array.from({ length: 100 }, (_, j) => [`f${j}`, `value {{ initial.v${j} }} ${'x'.repeat(20)}`])),
  },
}));

const cases = [
  { name: '1 MB of {{ without a closer', definition: { name: 'hostile', steps: [returning(hostile)] } },
  { name: '1 MB of openers, one late closer', definition: { name: 'late', steps: [returning(lateCloser)] } },
  {
    name: '1 MB as ten 99,998-character {{ templates',
    definition: { name: 'split', steps: [returning(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, underLimit])))] },
  },
  {
    name: '1 MB as ten {{ $env.A … }} templates',
    definition: {
      name: 'split-late',
      steps: [returning(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, '{{ $env.A '.repeat(9_999) + '}}'])))],
    },
  },
  { name: 'baseline: 1 MB of ordinary templates', definition: { name: 'benign', steps: benignSteps } },
];

const out: string[] = ['Save-time check of a workflow definition (schema + every template), median of ' + RUNS];
for (const c of cases) {
  const bytes = Buffer.byteLength(JSON.stringify(c.definition));
  const { issues, ms } = timeCheck(c.definition);
  const verdict = issues.length ? `refused: ${issues[0].slice(0, 90)}` : 'accepted';
  out.push(`  ${c.name.padEnd(44)} ${fmt.mb(bytes).padStart(6)}  ${fmt.ms(ms).padStart(10)}  ${verdict}`);
}

// The rewriting it replaced, on prefixes of the hostile template: time grows with the square of the size.
const OLD_TAG = /({{-?|{%-?)([\s\S]*?)(-?}}|-?%})/g;
out.push('The replaced regular expression on the hostile text (not run on 1 MB: it would take hours)');
for (const size of [8 * 1024, 16 * 1024, 32 * 1024]) {
  const started = performance.now();
  hostile.slice(0, size).replace(OLD_TAG, (m) => m);
  out.push(`  ${fmt.int(size / 1024).padStart(4)} KB  ${fmt.ms(performance.now() - started).padStart(10)}`);
}
console.log(out.join('\n'));
