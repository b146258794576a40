import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

// The console is served by the API under /console/ (src/console/console.routes.ts), built at install time by scripts/run.mjs.
export default defineConfig({
  root: here,
  base: '/console/',
  // Chart definitions are shared with the server's report PDF: one module draws both.
  resolve: { alias: { '@charts': path.resolve(here, '../src/dashboards/charts') } },
  oxc: { jsx: { runtime: 'automatic', importSource: 'react' } },
  build: {
    outDir: path.resolve(here, 'dist'),
    emptyOutDir: true,
    // No inline scripts or data: modules: the Content-Security-Policy allows scripts from 'self' only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    // The large chunks (the editor, the charts) load only on the pages that need them; bench:console measures the first visit.
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // React Router marks its modules "use client" for server components; a single-page build has nothing to keep apart.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: { port: 5173 },
});
