import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'tsup';

/** Public entry points; each is a subpath export of package.json. */
const entries: Record<string, string> = {
  index: 'src/index.ts',
  internal: 'src/internal.ts',
  testing: 'src/testing/index.ts',
  'testing/arbitraries': 'src/testing/arbitraries.ts',
  host: 'src/host/index.ts',
  server: 'src/server/index.ts',
  'stores/memory': 'src/stores/memory/index.ts',
  'stores/sqlite': 'src/stores/sqlite/index.ts',
  'stores/postgres': 'src/stores/postgres/index.ts',
};
const publicEntries = Object.fromEntries(Object.entries(entries).filter(([, file]) => existsSync(file)));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'cli' ? [] : sources(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * The ESM build keeps one output module per source module (each is an entry, under `_/`), so an
 * application's bundler can drop every module it does not reach (`sideEffects: false`): importing
 * one operation bundles that operation's code, not the whole engine. Shared chunks still give every
 * entry the same copy of each module.
 */
const publicFiles = new Set(Object.values(publicEntries).map((f) => join(f)));
const moduleEntries = Object.fromEntries(
  sources('src')
    .filter((f) => !publicFiles.has(f))
    .map((f) => [`_/${f.slice('src/'.length, -'.ts'.length)}`, f]),
);

const shared = {
  sourcemap: true,
  target: 'es2022',
  external: ['better-sqlite3', 'pg', '@electric-sql/pglite', 'fast-check'],
};

export default defineConfig([
  {
    ...shared,
    entry: { ...publicEntries, ...moduleEntries },
    format: ['esm'],
    // Declarations for the public entries only (the `_/` modules are implementation).
    dts: { entry: publicEntries },
    clean: true,
    splitting: true,
  },
  {
    ...shared,
    entry: publicEntries,
    format: ['cjs'],
    // One CommonJS copy per entry would break identity checks across subpaths: share chunks.
    splitting: true,
    dts: true,
    clean: false,
    // `import.meta.url` from `__filename` (the SQLite store resolves its driver for its writer thread).
    shims: true,
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
