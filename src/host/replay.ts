/**
 * Replaying stored changes: loading, catching up with other writers, and proving a redacted change
 * loads before it is stored. A replay answers randomness and password hashing from what the change
 * recorded, so it must reach the recorded outcome exactly; anything else refuses the store.
 */
import type { OpResult } from '../core/result';
import type { RealmState } from '../core/state';
import { openChange, type Change } from './change';
import { lostTopicAlias, LOST_TOPIC_HINT } from './lost-topic';
import { CorruptStoreError, ReplayMismatchError } from './errors';
import { opContext, type HandleContext } from './handle-context';
import { applyInput, type OperationsByName } from './handle-input';
import type { ChangeNotice } from './listeners';
import { PlaybackPasswordHasher } from './passwords';
import { PlaybackRandom } from './random';
import type { RealmStore, SealedChange } from './store';

export interface ReplayEnv {
  readonly ops: OperationsByName;
  readonly ctx: HandleContext | undefined;
  /** Named in errors. */
  readonly store: Pick<RealmStore, 'describe'>;
}

interface Replayed {
  readonly state: RealmState;
  readonly version: number;
  /** The checksum of the last change replayed: the chain value the next change continues. */
  readonly chain: number;
  /** The changes' events, when asked for; the caller tells subscribers once it has moved on. */
  readonly notices: readonly ChangeNotice[];
}

/**
 * Replays stored changes in order from `state` at `version`; any damage or divergence throws, so
 * nothing is half-applied. `spent` gets each change's replay time (the checkpoint policy's input).
 */
export function replayStored(
  env: ReplayEnv,
  from: { readonly state: RealmState; readonly version: number; readonly chain: number },
  changes: readonly SealedChange[],
  notify: boolean,
  spent: (ms: number) => void,
  /** Told each change once it applied (e.g. to remember its request id). */
  applied?: (change: Change) => void,
): Replayed {
  let { state, version, chain } = from;
  const notices: ChangeNotice[] = [];
  for (const sealed of changes) {
    const where = `${env.store.describe}, change ${sealed.version}`;
    if (sealed.version !== version + 1) {
      throw new CorruptStoreError(where, `expected change ${version + 1} next (a change is missing)`);
    }
    const change = openChange(sealed, where, chain);
    const started = performance.now();
    const result = replayChange(env, state, change);
    spent(performance.now() - started);
    state = result.state;
    version = change.version;
    chain = sealed.checksum;
    applied?.(change);
    if (notify) notices.push({ version, events: result.events });
  }
  return { state, version, chain, notices };
}

/** Replays one stored change on `state`; a different outcome is a `ReplayMismatchError`. */
export function replayChange(env: ReplayEnv, state: RealmState, change: Change): OpResult {
  if (change.input.kind === 'call' && !env.ops.has(change.input.op)) {
    // Written by a host with other operations (or a newer chat-realm): a divergence, not a crash.
    throw new ReplayMismatchError(
      change.version,
      `the operation ${change.input.op} is not among this handle's`,
    );
  }
  const random = new PlaybackRandom(change.random, change.version);
  const passwords = change.liveHasher
    ? undefined
    : new PlaybackPasswordHasher(change.passwords ?? [], change.version);
  const ctx = opContext(env.ctx, change.now, random, change.deleteTopic, passwords);
  const result = applyInput(env.ops, state, change.input, ctx);
  if (result.status !== change.status) {
    const hint = lostTopicAlias(change) ? ` (${LOST_TOPIC_HINT})` : '';
    throw new ReplayMismatchError(
      change.version,
      `status ${result.status}, recorded ${change.status}${hint}`,
    );
  }
  if (result.state === state) throw new ReplayMismatchError(change.version, 'the replay changed nothing');
  if (!random.exhausted)
    throw new ReplayMismatchError(change.version, 'the replay used fewer random bytes than recorded');
  if (passwords && !passwords.exhausted)
    throw new ReplayMismatchError(
      change.version,
      'the replay made fewer password hasher calls than recorded',
    );
  return result;
}

/**
 * A change stored with its secrets redacted is replayed, from its sealed bytes, before it is
 * stored: it must pass every check a load makes and give the same users as the original run (the
 * password hash lives there). So a redacted change that would not load, e.g. because the
 * operation looked at the value it can no longer see, is refused (PersistError) instead of
 * acknowledged. It costs one more run of the operation, with the hasher answered from memory.
 */
export function proveReplay(
  env: ReplayEnv,
  base: RealmState,
  sealed: SealedChange,
  chain: number,
  expected: RealmState,
): void {
  const where = `${env.store.describe}, change ${sealed.version} (before storing)`;
  const change = openChange(sealed, where, chain);
  const trial = replayChange(env, base, change).state;
  if (!sameUsers(base, trial, expected)) {
    throw new ReplayMismatchError(change.version, 'the replay with redacted secrets gave other users');
  }
}

/** Whether two results of one base state hold the same user records (unchanged ones by identity). */
function sameUsers(base: RealmState, a: RealmState, b: RealmState): boolean {
  if (a.users === b.users) return true;
  if (a.users.size !== b.users.size) return false;
  for (const [id, user] of a.users) {
    const other = b.users.get(id);
    if (other === user) continue;
    if (other === undefined || user === base.users.get(id) || other === base.users.get(id)) return false;
    if (JSON.stringify(user) !== JSON.stringify(other)) return false;
  }
  return true;
}
