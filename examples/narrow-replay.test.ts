import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { replayNarrow } from './narrow-replay';

const TINY = { preset: 'small', users: 12, channels: 3, messages: 700, window: 200 } as const;

describe('examples/narrow-replay', () => {
  it('marks every message read, one window per request', () => {
    const report = replayNarrow(TINY);
    expect(report.messages).toBe(700);
    expect(report.unreadBefore).toBeGreaterThan(0);
    expect(report.unreadAfter).toBe(0);
    // Each full request processes a whole window; together they mark exactly the unread ones.
    expect(report.requests.slice(0, -1).every((r) => r.processed === TINY.window)).toBe(true);
    expect(report.requests.reduce((n, r) => n + r.updated, 0)).toBe(report.unreadBefore);
  });

  it('runs from the command line', () => {
    const script = fileURLToPath(new URL('./narrow-replay.ts', import.meta.url));
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        script,
        '--users',
        '10',
        '--channels',
        '2',
        '--messages',
        '300',
        '--window',
        '100',
        '--json',
      ],
      {
        encoding: 'utf8',
      },
    );
    const report = JSON.parse(out) as { messages: number; unreadAfter: number; requests: unknown[] };
    expect(report.messages).toBe(300);
    expect(report.unreadAfter).toBe(0);
    expect(report.requests.length).toBeGreaterThanOrEqual(3);
  });
});
