import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

/** `chat-realm/...` imports (examples, docs) run against the sources, as tsconfig's `paths` type them. */
const PACKAGE_ALIASES = [
  { find: /^chat-realm$/, replacement: src('index.ts') },
  { find: /^chat-realm\/internal$/, replacement: src('internal.ts') },
  { find: /^chat-realm\/testing$/, replacement: src('testing/index.ts') },
  { find: /^chat-realm\/testing\/arbitraries$/, replacement: src('testing/arbitraries.ts') },
  { find: /^chat-realm\/host$/, replacement: src('host/index.ts') },
  { find: /^chat-realm\/server$/, replacement: src('server/index.ts') },
  { find: /^chat-realm\/stores\/(memory|sqlite|postgres)$/, replacement: src('stores/$1/index.ts') },
];

export default defineConfig({
  resolve: { alias: PACKAGE_ALIASES },
  test: {
    include: ['test/**/*.test.ts', 'examples/**/*.test.ts'],
    // Deep equality of message chunks by their columns (appended chunks make their views lazily).
    setupFiles: ['test/support/chunk-equality.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
