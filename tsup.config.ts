import { existsSync } from 'node:fs';
import { defineConfig } from 'tsup';

/** Public entry points; each is a subpath export of package.json. */
const entries: Record<string, string> = {
  index: 'src/index.ts',
  testing: 'src/testing/index.ts',
  'testing/arbitraries': 'src/testing/arbitraries.ts',
  host: 'src/host/index.ts',
  server: 'src/server/index.ts',
  'stores/memory': 'src/stores/memory/index.ts',
  'stores/sqlite': 'src/stores/sqlite/index.ts',
  'stores/postgres': 'src/stores/postgres/index.ts',
};

export default defineConfig([
  {
    entry: Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(file))),
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'es2022',
    // Shared chunks: every entry uses the same copy of the core, so instanceof checks hold across subpaths.
    splitting: true,
    external: ['better-sqlite3', 'pg', '@electric-sql/pglite', 'fast-check'],
  },
  {
    entry: { 'cli/main': 'src/cli/main.ts' },
    format: ['esm'],
    target: 'node20',
    sourcemap: true,
    clean: false,
    external: ['better-sqlite3', 'pg', '@electric-sql/pglite'],
    banner: { js: '#!/usr/bin/env node' },
  },
]);
