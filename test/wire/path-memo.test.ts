import { describe, expect, it } from 'vitest';
import { PathMemo } from '../../src/wire/path-memo';

describe('PathMemo', () => {
  it('finds a method and path once, then answers from memory (null values too)', () => {
    const calls: string[] = [];
    const memo = new PathMemo<string | null>((m, p) => {
      calls.push(`${m} ${p}`);
      return p === '/none' ? null : `${m}:${p}`;
    });
    expect(memo.get('GET', '/users/me')).toBe('GET:/users/me');
    expect(memo.get('GET', '/users/me')).toBe('GET:/users/me');
    expect(memo.get('POST', '/users/me')).toBe('POST:/users/me');
    expect(memo.get('GET', '/none')).toBeNull();
    expect(memo.get('GET', '/none')).toBeNull();
    expect(calls).toEqual(['GET /users/me', 'POST /users/me', 'GET /none']);
  });

  it('keeps at most maxEntries values, then starts again; long paths are never kept', () => {
    let calls = 0;
    const memo = new PathMemo<number>(
      (_m, p) => {
        calls++;
        return p.length;
      },
      3,
      10,
    );
    for (const p of ['/a', '/b', '/c']) memo.get('GET', p);
    expect(calls).toBe(3);
    memo.get('GET', '/a');
    expect(calls).toBe(3);
    memo.get('GET', '/d'); // the fourth: the memo starts again with it
    memo.get('GET', '/a');
    expect(calls).toBe(5);
    const long = `/${'x'.repeat(20)}`;
    memo.get('GET', long);
    memo.get('GET', long);
    expect(calls).toBe(7);
  });
});
