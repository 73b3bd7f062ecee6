import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authenticate } from '../../src/wire/auth';
import { devRealm } from '../support/realm';

const state = devRealm();
const hamlet = state.users.get(4)!;

/** The header decoding as first written (WHATWG `atob`, then strict UTF-8): the reference. */
function reference(text: string): string | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 === 1) return undefined;
  try {
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** What authenticate must answer for a decoded header (the steps after decoding, as in auth.ts). */
function expected(decoded: string | undefined): string | number {
  if (decoded === undefined) return 'Invalid authorization header for basic auth';
  const parts = decoded.split(':');
  if (parts.length !== 2) return 'Invalid authorization header for basic auth';
  const [email, key] = [parts[0]!.trim(), parts[1]!.trim()];
  if (!/^[A-Za-z0-9]{32}$/.test(key)) return 'Malformed API key';
  if (key !== hamlet.api_key || email.toLowerCase() !== hamlet.delivery_email.toLowerCase())
    return 'Invalid API key';
  return hamlet.user_id;
}

function answer(header: string): string | number {
  const r = authenticate(state, header);
  return 'userId' in r ? r.userId : 'msg' in r ? r.msg : 'anonymous';
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

describe('authenticate: the base64 of a Basic header (hand-decoded on the hot path)', () => {
  it('decodes exactly as atob + strict UTF-8: every string over the alphabet, padding and strays', () => {
    const unit = fc.constantFrom(
      ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=!é'.split(''),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 24 }), (s) => answer(`Basic ${s}`) === expected(reference(s))),
      { numRuns: 20_000 },
    );
  });

  it('decodes encoded credentials, with and without padding, ASCII or not', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constant(`${hamlet.delivery_email}:${hamlet.api_key}`),
      fc.constant(`  ${hamlet.delivery_email.toUpperCase()} :${hamlet.api_key}`),
    );
    fc.assert(
      fc.property(text, fc.boolean(), (s, stripPadding) => {
        let h = b64(new TextEncoder().encode(s));
        if (stripPadding) h = h.replace(/=+$/, '');
        return answer(`Basic ${h}`) === expected(reference(h));
      }),
      { numRuns: 5_000 },
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const h = b64(bytes);
        return answer(`Basic ${h}`) === expected(reference(h));
      }),
      { numRuns: 5_000 },
    );
  });

  it('accepts the real header', () => {
    expect(
      answer(`Basic ${b64(new TextEncoder().encode(`${hamlet.delivery_email}:${hamlet.api_key}`))}`),
    ).toBe(4);
  });
});
