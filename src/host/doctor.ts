/**
 * Examining a store change by change, and repairing what chat-realm up to 0.1.x recorded without a
 * parameter's alias (issue 23). Those versions stored only the names an operation declares, so a
 * message sent with `subject` (Zulip's legacy name for `topic`: bots, `zulip-send`, the Python
 * client) was recorded without its topic: the live call answered 200, its replay answers 400
 * ("Missing topic"), and the store no longer loads past it. The topic's text is in no record (a
 * change stores its cause, not its effect), so it cannot be reconstructed; a checkpoint written
 * after it (a clean shutdown of the process that wrote it) holds it, and then nothing replays it.
 * Otherwise `repairStore` replays such a change with a stand-in topic and writes a checkpoint at
 * the store's head, so later loads start after it.
 */
import type { RealmState } from '../core/state';
import { openChange, type Change, type ChangeInput } from './change';
import { checkpointStream, readCheckpoint } from './checkpoint';
import { ReplayMismatchError } from './errors';
import type { HandleContext } from './handle-context';
import { lostTopicAlias } from './lost-topic';
import { replayChange, type ReplayEnv } from './replay';
import type { RealmStore } from './store';
import type { AnyOperation } from '../core/operation';
import { OPERATIONS } from '../ops/index';

export interface DoctorOptions {
  readonly operations?: readonly AnyOperation[];
  readonly ctx?: HandleContext;
  /** Replay changes recorded without their topic with this one instead (and checkpoint the result). */
  readonly lostTopic?: string;
}

export interface DoctorReport {
  /** The checkpoint the examination started from. */
  readonly checkpoint: number;
  /** The last version whose state is right (every change up to it applied as recorded or repaired). */
  readonly version: number;
  /** The realm at `version`. */
  readonly state: RealmState;
  /** The chain value at `version`. */
  readonly chain: number;
  /** The store's head (the last change it holds). */
  readonly head: number;
  /** The first change that could not be applied, and why. */
  readonly failure?: { readonly change: number; readonly reason: string; readonly lostTopic: boolean };
  /** Changes replayed with the stand-in topic. */
  readonly repaired: readonly number[];
}

/** Replays a store's changes one by one from its latest checkpoint, stopping at the first failure. */
export async function examineStore(store: RealmStore, options: DoctorOptions = {}): Promise<DoctorReport> {
  const ops = new Map((options.operations ?? OPERATIONS).map((o) => [o.def.name, o]));
  const env: ReplayEnv = { ops, ctx: options.ctx, store };
  const stored = await store.load();
  if (stored.checkpoint === null) throw new Error(`${store.describe} holds no realm`);
  const where = `${store.describe}, checkpoint ${stored.checkpoint.version}`;
  const loaded = readCheckpoint(stored.checkpoint, where);
  let state = loaded.state;
  let version = stored.checkpoint.version;
  let chain = loaded.chain ?? 0;
  const head = stored.head?.version ?? version;
  const repaired: number[] = [];
  const report = (failure?: DoctorReport['failure']): DoctorReport => ({
    checkpoint: stored.checkpoint!.version,
    version,
    state,
    chain,
    head,
    repaired,
    ...(failure ? { failure } : {}),
  });
  for (const sealed of stored.changes) {
    let change: Change;
    try {
      if (sealed.version !== version + 1) throw new Error(`expected change ${version + 1} next`);
      change = openChange(sealed, `${store.describe}, change ${sealed.version}`, chain);
    } catch (error) {
      return report({ change: sealed.version, reason: (error as Error).message, lostTopic: false });
    }
    try {
      state = replayChange(env, state, change).state;
    } catch (error) {
      const lost = error instanceof ReplayMismatchError && lostTopicAlias(change);
      if (!lost || options.lostTopic === undefined)
        return report({ change: change.version, reason: (error as Error).message, lostTopic: lost });
      try {
        state = replayChange(env, state, withTopic(change, options.lostTopic)).state;
        repaired.push(change.version);
      } catch (again) {
        return report({ change: change.version, reason: (again as Error).message, lostTopic: true });
      }
    }
    version = change.version;
    chain = sealed.checksum;
  }
  return report();
}

/**
 * Examines the store with `lostTopic` standing in for lost topics and, when every change then
 * applies and some needed it, writes a checkpoint at the head: later loads start there.
 */
export async function repairStore(
  store: RealmStore,
  options: DoctorOptions & { readonly lostTopic: string },
): Promise<DoctorReport> {
  const report = await examineStore(store, options);
  if (report.failure === undefined && report.repaired.length > 0) {
    await store.writeCheckpoint(checkpointStream(report.version, report.state, report.chain));
  }
  return report;
}

function withTopic(change: Change, topic: string): Change {
  const input = change.input as Extract<ChangeInput, { kind: 'request' }>;
  const body = Object.assign(Object.create(null) as Record<string, string>, input.body, { topic });
  return { ...change, input: { ...input, body } };
}
