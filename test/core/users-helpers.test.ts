import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { md5Hex } from '../../src/core/md5';
import { isUrl } from '../../src/core/url';
import { isIsoDate } from '../../src/core/users/custom-profile-fields';
import { formatDateJoined } from '../../src/core/users/format';

describe('users helpers', () => {
  it('md5Hex matches node:crypto on any text', () => {
    for (const s of [
      '',
      'a',
      'hamlet@zulip.com',
      'x'.repeat(55),
      'x'.repeat(56),
      'x'.repeat(64),
      'héllo ☃ 😀',
    ]) {
      expect(md5Hex(s)).toBe(createHash('md5').update(s).digest('hex'));
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 120 }), (s) => {
        expect(md5Hex(s)).toBe(createHash('md5').update(s).digest('hex'));
      }),
      { numRuns: 30 },
    );
  });

  it('isUrl follows Django URLValidator rules', () => {
    for (const ok of [
      'https://zulip.com',
      'http://localhost:9991/path?q=1#f',
      'ftp://files.example.org/x',
      'https://user:pw@example.co.uk/',
      'http://127.0.0.1/',
      'http://[::1]/',
      'https://xn--bcher-kva.example/',
      'https://reddit.com/username',
    ]) {
      expect(isUrl(ok)).toBe(true);
    }
    for (const bad of [
      'not URL',
      'reddit.com/x',
      'javascript:alert(1)',
      'http://',
      'http://exa mple.com',
      'https://example',
      'mailto:a@b.c',
    ]) {
      expect(isUrl(bad)).toBe(false);
    }
    expect(isUrl(`https://a.com/${'x'.repeat(2048)}`)).toBe(false);
  });

  it('isIsoDate accepts real calendar days only', () => {
    expect(['2024-02-29', '1909-03-05', '0001-01-01', '9999-12-31'].every(isIsoDate)).toBe(true);
    expect(
      ['2023-02-29', '1909-3-5', '19090305', 'a-b-c', '2020-00-10', '2020-04-31', '0000-01-01'].some(
        isIsoDate,
      ),
    ).toBe(false);
  });

  it('formatDateJoined gives minutes in UTC, or the date', () => {
    expect(formatDateJoined('2025-01-01T00:00:00+00:00', false)).toBe('2025-01-01T00:00+00:00');
    expect(formatDateJoined('2025-01-01T01:30:59-05:00', false)).toBe('2025-01-01T06:30+00:00');
    expect(formatDateJoined('2025-01-01T01:30:59-05:00', true)).toBe('2025-01-01');
    expect(formatDateJoined('garbage', false)).toBe('garbage');
  });
});
