/**
 * The context the handle lends operations: the host's clock, randomness and password hasher, or,
 * when a stored change is replayed, the values it recorded.
 */
import {
  cryptoRandom,
  type DeleteTopicOptions,
  type OpContext,
  type PasswordHasher,
  type RandomSource,
} from '../core/context';
import { defaultPasswordHasher } from '../core/passwords';
import type { Change } from './change';

/** What the host lends operations. Unlike `OpContext`, `now` may be a clock. */
export interface HandleContext {
  /** UNIX seconds, or a clock returning them. Default: the system clock. */
  readonly now?: number | (() => number);
  readonly random?: RandomSource;
  /**
   * Hashes and verifies passwords when operations run. Replays answer from the recorded answers,
   * so only changes written in format 1 (which replay with this hasher) need the same one.
   */
  readonly passwords?: PasswordHasher;
  readonly deleteTopic?: DeleteTopicOptions;
}

/** The time a new operation runs at: read once per attempt, then recorded with the change. */
export function clock(ctx: HandleContext | undefined): number {
  const now = ctx?.now;
  if (typeof now === 'number') return now;
  if (typeof now === 'function') return now();
  return Math.floor(Date.now() / 1000);
}

export function randomSource(ctx: HandleContext | undefined): RandomSource {
  return ctx?.random ?? cryptoRandom;
}

export function liveHasher(ctx: HandleContext | undefined): PasswordHasher {
  return ctx?.passwords ?? defaultPasswordHasher;
}

/**
 * The `OpContext` for one run. A replay passes the change's recorded `deleteTopic` (stored with
 * `null` for "unbounded", since JSON has no infinity); a live run falls back to the host's.
 */
export function opContext(
  ctx: HandleContext | undefined,
  now: number,
  random: RandomSource | undefined,
  deleteTopic?: Change['deleteTopic'],
  passwords?: PasswordHasher,
): OpContext {
  const dt = deleteTopic
    ? { batchSize: deleteTopic.batchSize, maxBatches: deleteTopic.maxBatches ?? Number.POSITIVE_INFINITY }
    : ctx?.deleteTopic;
  const r = random ?? randomSource(ctx);
  const p = passwords ?? liveHasher(ctx);
  // Two literals rather than a spread of an optional field: every run builds one.
  return dt ? { now, random: r, passwords: p, deleteTopic: dt } : { now, random: r, passwords: p };
}
