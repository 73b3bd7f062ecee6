/**
 * How long the laws run, and how to replay one failure.
 *
 * - `npm test`: bounded runs (`runs(n)` = n), so every file stays within seconds.
 * - `npm run fuzz` (FUZZ=1): each property runs 100× longer (FUZZ=<k> multiplies by k instead).
 * - Replay: fast-check prints `{ seed: …, path: "…" }` with every failure. Run the same file with
 *   `FC_SEED=<seed> FC_PATH=<path>` (path optional) to re-run exactly that case, shrunk; `FC_RUNS`
 *   overrides the number of runs. `fcParams(n)` reads them all.
 */
import type fc from 'fast-check';
import { vi } from 'vitest';

function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** The fuzz multiplier: 1 normally, 100 under FUZZ=1, k under FUZZ=k (k > 1). */
export function fuzzFactor(): number {
  const fuzz = env('FUZZ');
  if (fuzz === undefined || fuzz === '0') return 1;
  const k = Number(fuzz);
  return Number.isInteger(k) && k > 1 ? k : 100;
}

/** Bounded runs in `npm test`; `npm run fuzz` (FUZZ=1) runs each property much longer. */
export const runs = (n: number): number => {
  const forced = env('FC_RUNS');
  return forced !== undefined && Number.isInteger(Number(forced)) ? Number(forced) : n * fuzzFactor();
};

/**
 * Parameters for `fc.assert`: the number of runs, and the seed/path to replay from FC_SEED/FC_PATH.
 * Never sets anything that would hide a failure (no `endOnFailure` without shrinking, no custom
 * reporter): fast-check's own report, with the seed and the shrunk counterexample, reaches vitest.
 */
export function fcParams<T = unknown>(n: number, extra: fc.Parameters<T> = {}): fc.Parameters<T> {
  const seed = env('FC_SEED');
  const path = env('FC_PATH');
  return {
    ...extra,
    numRuns: runs(n),
    ...(seed !== undefined ? { seed: Number(seed) } : {}),
    ...(path !== undefined ? { path } : {}),
  };
}

// Under FUZZ a property runs k times longer: give each test k times vitest's usual minute.
if (fuzzFactor() > 1) vi.setConfig({ testTimeout: 60_000 * fuzzFactor() });
