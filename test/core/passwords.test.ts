import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { constantTimeEqual, defaultPasswordHasher, scryptPasswordHasher } from '../../src/core/passwords';
import { sha256Hex } from '../../src/core/sha256';

/** The earlier default scheme, rebuilt here to make stored hashes of it. */
function legacyHash(password: string, salt: string, iterations = 4096): string {
  let h = sha256Hex(`${salt}:${password}`);
  for (let i = 1; i < iterations; i++) h = sha256Hex(h + salt);
  return `sha256i$${iterations}$${salt}$${h}`;
}

describe('password hashing', () => {
  const fast = scryptPasswordHasher({ logN: 10 });

  it('hashes with scrypt by default and verifies', () => {
    const hash = defaultPasswordHasher.hash('correct horse', seededRandom(1));
    expect(hash).toMatch(/^scrypt\$15\$8\$1\$[0-9a-f]{24}\$[0-9a-f]{64}$/);
    expect(defaultPasswordHasher.verify('correct horse', hash)).toBe(true);
    expect(defaultPasswordHasher.verify('correct horsf', hash)).toBe(false);
  });

  it('salts each hash from the random source', () => {
    const a = fast.hash('pw', seededRandom(1));
    const b = fast.hash('pw', seededRandom(2));
    expect(a).not.toBe(b);
    expect(fast.hash('pw', seededRandom(1))).toBe(a);
  });

  it('verifies hashes of the earlier iterated SHA-256 scheme', () => {
    const old = legacyHash('hamlet-password', 'a1b2c3d4e5f6a1b2c3d4e5f6');
    expect(defaultPasswordHasher.verify('hamlet-password', old)).toBe(true);
    expect(fast.verify('hamlet-password', old)).toBe(true);
    expect(fast.verify('other', old)).toBe(false);
  });

  it('verifies with the parameters stored in the hash', () => {
    const hash = fast.hash('pw', seededRandom(3));
    expect(scryptPasswordHasher({ logN: 11 }).verify('pw', hash)).toBe(true);
  });

  it('refuses malformed or out-of-range stored hashes without throwing', () => {
    for (const bad of [
      '',
      'scrypt$',
      'scrypt$40$8$1$00$' + '0'.repeat(64),
      'scrypt$10$8$1$00$' + '0'.repeat(63),
      'sha256i$0$salt$' + '0'.repeat(64),
      'sha256i$4096$salt$xyz',
      'md5$abc',
    ]) {
      expect(fast.verify('pw', bad)).toBe(false);
    }
    expect(() => scryptPasswordHasher({ logN: 0 })).toThrow(RangeError);
  });

  it('compares in constant time (no early exit, lengths must match)', () => {
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1]), new Uint8Array([1, 2]))).toBe(false);
  });
});
