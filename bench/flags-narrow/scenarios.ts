/**
 * The POST /messages/flags/narrow benchmark scenarios and the candidate (chat-realm itself,
 * through the library API: parameter parsing, narrow build, window selection, copy-on-write flag
 * update and the event).
 */
import type { RealmState } from '../../src/core/state';
import { nameOf } from '../../src/core/messages/interner';
import { updateMessageFlagsForNarrow } from '../../src/ops/messages/updateMessageFlagsForNarrow';
import type { NarrowTerm } from '../../src/narrow/terms';

export interface Scenario {
  readonly name: string;
  readonly userId: number;
  readonly narrow: NarrowTerm[];
  readonly anchor: 'oldest' | 'newest' | number;
  readonly numBefore: number;
  readonly numAfter: number;
  readonly includeAnchor: boolean;
  readonly flag: 'read' | 'starred' | 'collapsed';
  readonly op: 'add' | 'remove';
  /** What the simple implementations need to evaluate the narrow (resolved ids). */
  readonly filter: Filter;
}

/** A resolved conjunction the baselines evaluate: -1 / null means "no condition". */
export interface Filter {
  readonly channel: number;
  /** Folded topic key (store.foldedTopics) and its text. */
  readonly topicKey: number;
  readonly topic: string | null;
  readonly sender: number;
  readonly unread: boolean;
  readonly dm: boolean;
}

export const NO_FILTER: Filter = {
  channel: -1,
  topicKey: -1,
  topic: null,
  sender: -1,
  unread: false,
  dm: false,
};

export interface Outcome {
  /** Selected ids, ascending. */
  readonly processed: number[];
  /** Ids whose flag changed, ascending. */
  readonly updated: number[];
}

export const term = (operator: string, operand: string | number, negated = false): NarrowTerm => ({
  operator,
  operand,
  negated,
});

/** Runs one request through chat-realm; returns the next state and the outcome. */
export function runOurs(
  state: RealmState,
  s: Scenario,
): { state: RealmState; outcome: Outcome; body: Record<string, unknown> } {
  const r = updateMessageFlagsForNarrow(
    state,
    { userId: s.userId },
    {
      anchor: typeof s.anchor === 'number' ? String(s.anchor) : s.anchor,
      narrow: s.narrow,
      num_before: s.numBefore,
      num_after: s.numAfter,
      include_anchor: s.includeAnchor,
      flag: s.flag,
      op: s.op,
    },
  );
  if (r.status !== 200) throw new Error(`chat-realm refused ${s.name}: ${JSON.stringify(r.body)}`);
  const body = r.body as Record<string, unknown>;
  const updated = (r.events[0]!.event as unknown as { messages: number[] }).messages;
  return { state: r.state, outcome: { processed: [], updated }, body };
}

/** The busiest channel, its busiest topic and its busiest sender, and the user with most DM rows. */
export function pickTargets(state: RealmState, heavyUser: number) {
  const store = state.messages;
  let channel = -1;
  let best = -1;
  for (const [sid, list] of store.byChannel) if (list.count > best) [channel, best] = [sid, list.count];
  let topicKey = -1;
  best = -1;
  for (const [key, list] of store.byTopic.get(channel) ?? [])
    if (list.count > best) [topicKey, best] = [key, list.count];
  const topic = nameOf(store.foldedTopics, topicKey);
  const senders = new Map<number, number>();
  for (const c of store.chunks)
    for (let i = 0; i < c.ids.length; i++)
      if (c.recipient[i] === channel) senders.set(c.sender[i]!, (senders.get(c.sender[i]!) ?? 0) + 1);
  const sender = [...senders].sort((a, b) => b[1] - a[1])[0]![0];
  let dmUser = -1;
  best = -1;
  for (const [userId, rows] of store.rows) {
    if (userId === heavyUser) continue;
    let dms = 0;
    for (const c of rows.chunks)
      for (let i = 0; i < c.flags.length; i++) if ((c.flags[i]! & 256) !== 0) dms++;
    if (dms > best) [dmUser, best] = [userId, dms];
  }
  return { channel, topicKey, topic, sender, dmUser };
}
