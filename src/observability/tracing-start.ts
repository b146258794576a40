import { TracingSettingsError, tracingSettings } from './tracing-settings';
import type { Tracing } from './tracing';

/**
 * The first module src/main.ts loads. Instrumentation patches http and pg as they are loaded, so the tracer provider
 * is registered here, before any other module of the service is; with no OTEL_* endpoint set nothing of the SDK is
 * loaded at all. A bad setting stops the start as any configuration error does (exit 78), naming the variable.
 */
function start(): Tracing | undefined {
  try {
    const settings = tracingSettings(process.env);
    if (!settings) return undefined;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { startTracing } = require('./tracing') as typeof import('./tracing');
    return startTracing(settings, process.argv[2] ?? 'all');
  } catch (err) {
    if (!(err instanceof TracingSettingsError)) throw err;
    console.error(err.message);
    process.exit(78);
  }
}

export const tracing: Tracing | undefined = start();
