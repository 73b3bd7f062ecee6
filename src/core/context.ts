/**
 * What the host lends the pure core: the time, a random source and a password hasher. The core
 * never reads a clock or calls Math.random; it asks the context.
 */
export interface RandomSource {
  /** `n` uniformly random bytes. */
  bytes(n: number): Uint8Array;
}

export interface PasswordHasher {
  hash(password: string, random: RandomSource): string;
  verify(password: string, hash: string): boolean;
}

import { EMPTY_PRESENCE, type PresenceView } from './presence/presence';

export interface DeleteTopicOptions {
  /** Messages deleted per batch (Zulip: 100). */
  readonly batchSize?: number;
  /** Batches one request may run before answering `complete: false` (Zulip stops on a time budget). */
  readonly maxBatches?: number;
}

export interface OpContext {
  /** UNIX seconds. Defaults to the state's snapshot `now`, else 0: pass it for real hosts. */
  readonly now?: number;
  readonly random?: RandomSource;
  readonly passwords?: PasswordHasher;
  readonly deleteTopic?: DeleteTopicOptions;
  /** The host's presence rows (volatile host state, never in the realm); absent: none. */
  readonly presence?: PresenceView;
}

export interface ResolvedContext {
  readonly now: number;
  readonly random: RandomSource;
  /**
   * The caller's hasher; absent means `defaultPasswordHasher`, which the few operations that hash
   * passwords take from `hasherOf` (so the others do not bundle scrypt).
   */
  readonly passwords?: PasswordHasher;
  readonly deleteTopic: Required<DeleteTopicOptions>;
  readonly presence: PresenceView;
}

/**
 * The default random source: Web Crypto, a global in browsers, Deno, Bun and Node ≥ 19, so this
 * stays free of `node:`. Operations use it when the context names no `random`.
 *
 * @example
 * ```ts
 * const r = regenerateBotApiKey(realm, { userId: 4 }, { bot_id: 11 }, { now, random: cryptoRandom });
 * expect(r.body['api_key']).toMatch(/^[A-Za-z0-9]{32}$/);
 * expect(cryptoRandom.bytes(16)).toHaveLength(16);
 * ```
 */
export const cryptoRandom: RandomSource = {
  bytes(n) {
    const out = new Uint8Array(n);
    globalThis.crypto.getRandomValues(out);
    return out;
  },
};

/**
 * A deterministic source for tests and simulations (mulberry32): the same seed gives the same
 * API keys, password salts and ids.
 *
 * @example
 * ```ts
 * const ctx = { now, random: seededRandom(42) };
 * const a = regenerateBotApiKey(realm, { userId: 4 }, { bot_id: 11 }, ctx);
 * const b = regenerateBotApiKey(realm, { userId: 4 }, { bot_id: 11 }, { now, random: seededRandom(42) });
 * expect(a.body['api_key']).toBe(b.body['api_key']);
 * ```
 */
export function seededRandom(seed: number): RandomSource {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    bytes(n) {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = Math.floor(next() * 256);
      return out;
    },
  };
}

export function resolveContext(ctx: OpContext | undefined, stateNow: number | null): ResolvedContext {
  const now = ctx?.now ?? stateNow ?? 0;
  const random = ctx?.random ?? cryptoRandom;
  const deleteTopic = {
    batchSize: ctx?.deleteTopic?.batchSize ?? 100,
    maxBatches: ctx?.deleteTopic?.maxBatches ?? Number.POSITIVE_INFINITY,
  };
  const presence = ctx?.presence ?? EMPTY_PRESENCE;
  // Two literals, not a spread of an optional part: every operation resolves its context, and a
  // literal with a spread is built by V8's generic copy. Keys in the order they always had.
  return ctx?.passwords
    ? { now, random, passwords: ctx.passwords, deleteTopic, presence }
    : { now, random, deleteTopic, presence };
}

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A Zulip-style API key: 32 characters of [A-Za-z0-9], unbiased, from the context's random source.
 *
 * @example
 * ```ts
 * const key = generateApiKey(seededRandom(3));
 * expect(key).toMatch(/^[A-Za-z0-9]{32}$/);
 * expect(generateApiKey(seededRandom(3))).toBe(key);
 * ```
 */
export function generateApiKey(random: RandomSource): string {
  return randomString(KEY_ALPHABET, 32, random);
}

/**
 * `length` characters of `alphabet`, unbiased: a byte is used only below the largest multiple of
 * the alphabet's size (then taken modulo it), others are skipped. Bytes are drawn in batches and
 * read from the end of each batch, the order nanoid's `customRandom` uses, so keys made from a
 * seeded source are the ones earlier versions made.
 */
function randomString(alphabet: string, length: number, random: RandomSource): string {
  const n = alphabet.length;
  const cutoff = 256 - (256 % n);
  const batch = Math.ceil((1.6 * 256 * length) / cutoff);
  let out = '';
  for (;;) {
    const bytes = random.bytes(batch);
    for (let i = batch - 1; i >= 0; i--) {
      const b = bytes[i]!;
      if (b < cutoff) out += alphabet[b % n]!;
      if (out.length >= length) return out;
    }
  }
}
