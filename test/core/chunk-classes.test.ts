import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every plain message chunk shares one hidden class, however its store was made (built, loaded
 * from a snapshot, edited, reacted to, with deletions, with moves folded): readers load a chunk's
 * columns per message, and chunks made by spreads had a hidden class each, which made those loads
 * megamorphic (a register's unread walk ran 3× slower). Checked with V8's `%HaveSameMap` in a
 * child process, since vitest's workers do not take `--allow-natives-syntax`.
 */
describe('message chunk hidden classes', () => {
  it('every plain chunk of every kind of store has the same one', () => {
    const fixture = fileURLToPath(new URL('./fixtures/chunk-classes.ts', import.meta.url));
    const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', fixture], {
      encoding: 'utf8',
    });
    const counts = JSON.parse(out) as Record<string, number>;
    expect(counts['chunks']).toBeGreaterThan(20);
    expect(counts).toEqual({
      chunks: counts['chunks'],
      built: 1,
      edited: 1,
      reacted: 1,
      deleted: 1,
      moved: 1,
      loaded: 1,
      all: 1,
    });
  }, 60_000);
});
