import type { OpContext } from '../core/context';
import type { RealmState } from '../core/state';
import type { ParamsOf } from '../core/operation';
import { sendMessage } from '../ops/messages/sendMessage';
import { Prng } from './prng';

/**
 * A day of an organization's traffic as POST /messages calls: channel messages by subscribers of
 * the channel (topics from a small vocabulary, so conversations continue; a mention now and then)
 * and direct messages between active people, at times spread over `seconds` from `start`.
 * Deterministic from the seed. The calls go through `sendMessage` like any client's, so a test can
 * replay them one by one (and watch the events) or let `applyTraffic` run them all.
 */
export interface TrafficOptions {
  /** How many messages to send. */
  readonly messages: number;
  readonly seed?: number;
  /** UNIX seconds of the first send (default: the realm's `now`, else 0). */
  readonly start?: number;
  /** The span the sends are spread over (default one day). */
  readonly seconds?: number;
  /** Share of direct messages (default 0.1). */
  readonly dmRatio?: number;
}

export interface TrafficCall {
  readonly actor: { readonly userId: number };
  readonly params: ParamsOf<typeof sendMessage>;
  readonly ctx: OpContext;
}

const TOPICS = ['standup', 'lunch', 'release', 'review', 'incident', 'planning', 'random', 'help'];
const WORDS = 'ok thanks looks good ship it tomorrow today meeting deploy fix test review plan idea'.split(
  ' ',
);

/**
 * The calls, lazily (a large realm's subscriber lists are read once per channel used).
 *
 * @example
 * ```ts
 * const org = simulateRealm({ preset: 'small', messages: 100 });
 * let state = org;
 * for (const call of simulateTraffic(org, { messages: 20, seed: 5 })) {
 *   const r = sendMessage(state, call.actor, call.params, call.ctx);
 *   if (r.status === 200) state = r.state;   // deliver r.events to their users here
 * }
 * expect(state.messages.count).toBeGreaterThan(org.messages.count);
 * ```
 */
export function* simulateTraffic(state: RealmState, options: TrafficOptions): Generator<TrafficCall> {
  const rng = new Prng(options.seed ?? 1);
  const start = options.start ?? state.now ?? 0;
  const seconds = options.seconds ?? 86_400;
  const dmRatio = options.dmRatio ?? 0.1;
  const channels = [...state.channels.values()].filter((c) => !c.is_archived).map((c) => c.stream_id);
  const people = [...state.users.values()].filter((u) => u.is_active && !u.is_bot).map((u) => u.user_id);
  const posters = new Map<number, number[]>();
  const postersOf = (streamId: number): number[] => {
    let list = posters.get(streamId);
    if (list === undefined) {
      list = [];
      for (const sub of state.subscriptions.get(streamId)?.values() ?? [])
        if (sub.active && state.users.get(sub.user_id)?.is_active) list.push(sub.user_id);
      posters.set(streamId, list);
    }
    return list;
  };
  for (let k = 0; k < options.messages; k++) {
    const now = start + Math.floor((k * seconds) / Math.max(1, options.messages));
    const words = Array.from({ length: 2 + rng.int(8) }, () => WORDS[rng.int(WORDS.length)]!).join(' ');
    if ((rng.chance(dmRatio) || channels.length === 0) && people.length >= 2) {
      const a = people[rng.skewed(people.length)]!;
      let b = people[rng.int(people.length)]!;
      if (b === a) b = people[(people.indexOf(a) + 1) % people.length]!;
      yield { actor: { userId: a }, params: { type: 'direct', to: [b], content: words }, ctx: { now } };
      continue;
    }
    if (channels.length === 0) return;
    const streamId = channels[rng.skewed(channels.length)]!;
    const subs = postersOf(streamId);
    if (subs.length === 0) continue;
    const sender = subs[rng.skewed(subs.length)]!;
    const mention = subs.length > 1 && rng.chance(0.05) ? subs[rng.int(subs.length)]! : undefined;
    const name = mention === undefined ? undefined : state.users.get(mention)?.full_name;
    const content = name === undefined ? words : `@**${name}** ${words}`;
    const topic = TOPICS[rng.skewed(TOPICS.length)]!;
    yield {
      actor: { userId: sender },
      params: { type: 'stream', to: streamId, topic, content },
      ctx: { now },
    };
  }
}

/**
 * Runs the traffic through `sendMessage`; refused sends (a channel one may not post in) are skipped.
 *
 * @example
 * ```ts
 * const org = simulateRealm({ preset: 'small', messages: 100 });
 * const { state, sent } = applyTraffic(org, { messages: 50, seed: 2 });
 * expect(state.messages.count).toBe(org.messages.count + sent);
 * ```
 */
export function applyTraffic(
  state: RealmState,
  options: TrafficOptions,
): { state: RealmState; sent: number } {
  let s = state;
  let sent = 0;
  for (const call of simulateTraffic(state, options)) {
    const r = sendMessage(s, call.actor, call.params, call.ctx);
    if (r.status !== 200) continue;
    s = r.state;
    sent++;
  }
  return { state: s, sent };
}
