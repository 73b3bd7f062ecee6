import type { FlagTest } from './plan';

/**
 * The flag tests folded into masks: every bit of `all` set, no bit of `none` set, and for each
 * multi-bit "some bit set" test (is:mentioned) at least one bit of it. Folded once per scan so
 * the per-row check is two mask comparisons, whatever the number of `is:` terms.
 */
interface FlagMasks {
  readonly all: number;
  readonly none: number;
  readonly any: readonly number[];
}

export function foldFlagTests(tests: readonly FlagTest[]): FlagMasks {
  let all = 0;
  let none = 0;
  const any: number[] = [];
  for (const t of tests) {
    if (!t.set) none |= t.mask;
    else if ((t.mask & (t.mask - 1)) === 0) all |= t.mask;
    else any.push(t.mask);
  }
  return { all, none, any };
}
