import type { Attributes } from '@opentelemetry/api';
import { inSpan, tracingOn } from './trace-context';

/**
 * `target` with each of `methods` run in a span `<prefix>.<method>` (tracing on): how the data store's queries show
 * beneath the step or request that made them, named by what they do rather than by their SQL. With tracing off the
 * methods are left unwrapped.
 */
export function tracedMethods<T extends object>(target: T, prefix: string, methods: ReadonlyArray<keyof T & string>, attributes: Attributes): T {
  // Tracing starts before anything is built (tracing-start.ts): off, the methods stay as they are.
  if (!tracingOn()) return target;
  for (const name of methods) {
    const method = target[name] as unknown as (...args: unknown[]) => Promise<unknown>;
    const spanName = `${prefix}.${name}`;
    const spanAttributes = { ...attributes, 'db.operation.name': name };
    Object.defineProperty(target, name, {
      value: (...args: unknown[]) => inSpan(spanName, spanAttributes, () => method.apply(target, args)),
      configurable: true,
      writable: true,
    });
  }
  return target;
}
