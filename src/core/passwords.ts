/**
 * Password hashing: scrypt (from @noble/hashes: synchronous, audited, no Node imports) with a
 * constant-time comparison. Hashes of the earlier `sha256i` scheme still verify, so realms saved
 * by older versions keep their passwords.
 */
import { scrypt } from '@noble/hashes/scrypt';
import { bytesToHex, hexToBytes } from '@noble/hashes/utils';
import { sha256Hex } from './sha256';
import type { PasswordHasher, RandomSource, ResolvedContext } from './context';

export interface ScryptOptions {
  /** log2 of scrypt's cost N. Default 15 (N = 32768: 32 MiB with r = 8). */
  readonly logN?: number;
  /** Block size. Default 8. */
  readonly r?: number;
  /** Parallelism. Default 1. */
  readonly p?: number;
}

/** Limits on stored parameters, so a tampered hash cannot make `verify` run for minutes. */
const MAX_LOG_N = 20;
const MAX_R = 32;
const MAX_P = 16;
const KEY_BYTES = 32;

/**
 * A scrypt hasher. Hashes read `scrypt$<logN>$<r>$<p>$<salt hex>$<key hex>`, so stronger settings
 * apply to new hashes while old ones keep verifying. `verify` also accepts the earlier `sha256i`
 * scheme and compares in constant time.
 *
 * @example
 * ```ts
 * const hasher = scryptPasswordHasher({ logN: 14 });
 * const hash = hasher.hash('correct horse', seededRandom(1));
 * expect(hash).toMatch(/^scrypt\$14\$8\$1\$/);
 * expect(hasher.verify('correct horse', hash)).toBe(true);
 * expect(hasher.verify('wrong', hash)).toBe(false);
 * ```
 */
export function scryptPasswordHasher(options: ScryptOptions = {}): PasswordHasher {
  const logN = options.logN ?? 15;
  const r = options.r ?? 8;
  const p = options.p ?? 1;
  if (!validParams(logN, r, p)) throw new RangeError(`scrypt parameters out of range: ${logN}, ${r}, ${p}`);
  return {
    hash(password: string, random: RandomSource): string {
      // 12 bytes, as the earlier scheme drew: replays of old change logs (format 1, live hasher)
      // hand the hasher exactly the recorded random bytes.
      const salt = bytesToHex(random.bytes(12));
      const key = scrypt(password, salt, { N: 2 ** logN, r, p, dkLen: KEY_BYTES });
      return `scrypt$${logN}$${r}$${p}$${salt}$${bytesToHex(key)}`;
    },
    verify(password: string, hash: string): boolean {
      if (hash.startsWith('sha256i$')) return verifyLegacy(password, hash);
      const [scheme, n, rr, pp, salt, key] = hash.split('$');
      if (scheme !== 'scrypt' || salt === undefined || key === undefined || !/^[0-9a-f]{64}$/u.test(key))
        return false;
      const [ln, br, par] = [Number(n), Number(rr), Number(pp)];
      if (!validParams(ln, br, par)) return false;
      const actual = scrypt(password, salt, { N: 2 ** ln, r: br, p: par, dkLen: KEY_BYTES });
      return constantTimeEqual(actual, hexToBytes(key));
    },
  };
}

function validParams(logN: number, r: number, p: number): boolean {
  const ok = (v: number, max: number) => Number.isInteger(v) && v >= 1 && v <= max;
  return ok(logN, MAX_LOG_N) && ok(r, MAX_R) && ok(p, MAX_P);
}

/** Equal-length byte arrays compared without an early exit. */
export function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** The earlier default: `sha256i$<iterations>$<salt>$<digest>` (iterated, salted SHA-256). */
function verifyLegacy(password: string, hash: string): boolean {
  const [, iterations, salt, digest] = hash.split('$');
  if (salt === undefined || digest === undefined || !/^[0-9a-f]{64}$/u.test(digest)) return false;
  const n = Number(iterations);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) return false;
  let h = sha256Hex(`${salt}:${password}`);
  for (let i = 1; i < n; i++) h = sha256Hex(h + salt);
  return constantTimeEqual(hexToBytes(h), hexToBytes(digest));
}

/**
 * The default hasher: scrypt (N = 2^15, r = 8, p = 1) with a constant-time comparison; hashes of
 * the earlier iterated-SHA-256 default still verify. `scryptPasswordHasher({ logN })` makes one
 * with other costs; any `{ hash, verify }` object can replace it.
 *
 * @example
 * ```ts
 * const hash = defaultPasswordHasher.hash('correct horse', seededRandom(1));
 * expect(hash).toMatch(/^scrypt\$15\$8\$1\$/);
 * expect(defaultPasswordHasher.verify('correct horse', hash)).toBe(true);
 * expect(defaultPasswordHasher.verify('wrong', hash)).toBe(false);
 * // Or your own: createRealm(snapshot, { passwords: myHasher }), or per call: { now, passwords }.
 * ```
 */
export const defaultPasswordHasher: PasswordHasher = /* @__PURE__ */ scryptPasswordHasher();

/** The hasher an operation uses: the caller's, else the default. */
export function hasherOf(ctx: ResolvedContext): PasswordHasher {
  return ctx.passwords ?? defaultPasswordHasher;
}
