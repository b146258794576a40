'use strict';
/**
 * Jest's runtime, with the V8 code cache of every module kept for the next
 * file the same worker runs. Jest gives each test file a module registry of
 * its own, so each file compiles again everything it loads: the app, express,
 * zod, typeorm, Temporal's generated protobuf code. That compiling was about
 * 0.7 s of the 2 s an integration file spends before its first test, on every
 * one of some 200 files. Here the first file to load a module compiles it, and
 * at that file's end the code cache is taken, with every function it ran
 * compiled; later files start from that cache. Modules are still evaluated
 * afresh in each file's own context: only compiled code is shared, never
 * state. Each module also gets the context's builtins as parameters, so
 * that looking them up is fast (BUILTINS below).
 *
 * Plain CommonJS, because Jest loads a runtime without transforming it. It
 * reaches into jest-runtime's module executor (`executor.compile`, Jest 30);
 * when that is missing it does nothing, and the suite runs as with Jest's own
 * runtime, only slower.
 */
const fs = require('node:fs');
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

/** Per worker process: code cache by module file, as it is on disk, and the length of its transformed source. */
const codeCache = new Map();

/**
 * ECMAScript's own globals, handed to every module as parameters. Jest runs a
 * file in a vm context, whose global object answers every lookup through a
 * C++ interceptor that V8 cannot optimize away: `Number.isFinite(x)` in a
 * hot loop cost 250 ns a call in Jest and 1 ns in Node, and the service's
 * code, zod, pg and typeorm look these names up all the time. As parameters
 * they are plain variables bound to the same objects, the context's own.
 * Only what no test replaces: never Date, performance or the timers (fake
 * timers swap them on the global), nor console or fetch.
 */
const BUILTINS = [
  `Object Array Number String Boolean Symbol BigInt Function Math JSON Reflect Proxy Promise Map Set WeakMap WeakSet
    WeakRef RegExp Error TypeError RangeError SyntaxError ReferenceError ArrayBuffer DataView Uint8Array Int8Array
    Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array BigInt64Array BigUint64Array
    Uint8ClampedArray parseInt parseFloat isNaN isFinite encodeURIComponent decodeURIComponent encodeURI decodeURI`,
  // Node's, which jest-environment-node sets once per file.
  `process Buffer URL URLSearchParams TextEncoder TextDecoder AbortController AbortSignal structuredClone
    queueMicrotask globalThis`,
].flatMap((names) => names.split(/\s+/));
/** The BUILTINS of each test file's context, looked up once. */
const builtinsOfContext = new WeakMap();
function builtinsOf(context) {
  let values = builtinsOfContext.get(context);
  if (values === undefined) {
    values = vm.runInContext(`[${BUILTINS.join(', ')}]`, context);
    builtinsOfContext.set(context, values);
  }
  return values;
}

class CompileCacheRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    /** Scripts this file compiled without a usable cache: their cache is taken at teardown, when their functions have run. */
    this.uncached = [];
    const executor = this.executor;
    if (typeof executor?.compile !== 'function' || !Array.isArray(executor.injectedModuleParameters)) return;
    const jestCompile = executor.compile.bind(executor);
    executor.compile = (source, filename) => this.compileWithCache(executor, jestCompile, source, filename);
  }

  compileWithCache(executor, jestCompile, source, filename) {
    const context = executor.environment.getVmContext();
    if (context == null) return null;
    // V8 checks a cache against the source's length only: the key holds the file's size and time of change too
    // (hashing every source instead cost about 0.1 s a file), so a file edited between runs of a watching Jest compiles anew.
    const stat = fs.statSync(filename, { throwIfNoEntry: false });
    if (stat === undefined) return jestCompile(source, filename);
    const key = `${filename}\0${stat.mtimeMs}\0${stat.size}\0${source.length}`;
    const cachedData = codeCache.get(key);
    let script;
    try {
      // The function Jest's compileFunction makes, spelled out: a Script can hand back its code cache after running.
      // The column offset keeps stack traces of the first line (all of a minified module) where the source has them.
      // The module's function inside one that takes BUILTINS: a module's own `var Map` still shadows them.
      const wrapper = `(function (${BUILTINS.join(', ')}) { return function (${executor.injectedModuleParameters.join(', ')}) {`;
      script = new vm.Script(`${wrapper}${source}\n}})`, {
        filename,
        columnOffset: -wrapper.length,
        cachedData,
        importModuleDynamically: (specifier, _script, attributes, phase) => executor.dynamicImport(specifier, filename, context, attributes, phase),
      });
    } catch {
      // Jest's own compile gives its own errors (a syntax error with the file's frame, ESM found in CommonJS).
      return jestCompile(source, filename);
    }
    if (cachedData === undefined || script.cachedDataRejected) this.uncached.push([key, script]);
    return script.runInContext(context)(...builtinsOf(context));
  }

  teardown() {
    // Replaces a cache V8 rejected, too.
    for (const [key, script] of this.uncached) codeCache.set(key, script.createCachedData());
    this.uncached = [];
    return super.teardown();
  }
}

module.exports = CompileCacheRuntime;
