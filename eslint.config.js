import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'docs/api/**', '**/*.cjs', '**/*.tmp.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  // TypeScript checks names itself; ESLint's no-undef does not know TS types and globals.
  { files: ['**/*.ts'], rules: { 'no-undef': 'off' } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // The core is pure and runtime-agnostic: no Node built-ins, no clock, no ambient randomness.
    files: ['src/core/**/*.ts', 'src/ops/**/*.ts', 'src/wire/**/*.ts', 'src/narrow/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['node:*', 'fs', 'path', 'crypto', 'better-sqlite3', 'pg'] },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Randomness comes from ctx.random.' },
        { object: 'Date', property: 'now', message: 'Time comes from ctx.now.' },
      ],
    },
  },
);
