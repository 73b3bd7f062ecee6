import { zulipError, type ZulipError } from '../core/errors';
import { FLAG_BITS } from '../core/messages/flags';
import { EMPTY_IDS, type IdList } from '../core/messages/idlist';
import { conversationKey, nameOf } from '../core/messages/interner';
import { MESSAGE_BITS } from '../core/messages/flags';
import type { MessageChunk } from '../core/messages/store';
import { VisibilityPolicy, type Channel, type User } from '../core/model/records';
import type { RealmState } from '../core/state';
import { NarrowContext, excludedFromHome } from './context';
import { parseSearch, searchMatches } from './search';
import { intOperand, pyStr, type NarrowTerm, type Operand } from './terms';

/**
 * Turns validated terms into an evaluation plan for one user, raising Zulip's `BAD_NARROW` errors
 * in term order (search terms are joined and applied last, as Zulip does). The plan is a
 * conjunction of row-flag tests and message tests, plus the smallest index list (channel, topic,
 * conversation) or single id a non-negated term restricts candidates to.
 */
export interface FlagTest {
  readonly mask: number;
  /** true: some bit of `mask` is set; false: none is. */
  readonly set: boolean;
}

/** A test on one message: its chunk and index in the store. */
export type MessageTest = (c: MessageChunk, i: number) => boolean;

export interface NarrowPlan {
  readonly ctx: NarrowContext;
  /** Zulip's "include history": candidates are all messages, not only the user's rows. */
  readonly history: boolean;
  /** A term matches nothing (an empty id list for `dm`, an unknown group DM). */
  readonly empty: boolean;
  /** Candidates are limited to this index list (null: no such restriction). */
  readonly drive: IdList | null;
  /** The channel every message of `drive` is in (channel and topic lists), else null. */
  readonly driveChannel: number | null;
  /** `drive` is a direct-message conversation's list. */
  readonly driveConversation: boolean;
  /** Candidates are limited to this one id (an `id` term). */
  readonly single: number | null;
  readonly flagTests: readonly FlagTest[];
  /** Message tests other than those implied by `drive`. */
  readonly messageTests: readonly MessageTest[];
  /** The first channel term's channel (first_unread muting looks at it, negated or not), or null. */
  readonly channelTerm: number | null;
  /** A non-negated DM operator or is:dm was used (first_unread skips muting). */
  readonly dmNarrow: boolean;
}

export type BuildResult =
  { readonly ok: true; readonly plan: NarrowPlan } | { readonly ok: false; readonly error: ZulipError };

export function badNarrow(desc: string): ZulipError {
  return zulipError(`Invalid narrow operator: ${desc}`, 'BAD_NARROW', 400, { desc });
}

class NarrowError {
  constructor(readonly desc: string) {}
}

const CHANNEL_OPS = new Set(['channel', 'stream']);
const CHANNELS_OPS = new Set(['channels', 'streams']);
const MENTION_BITS =
  FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

/** Resolves a channel operand (name, case-insensitive and trimmed, or id) without access checks. */
function findChannel(state: RealmState, operand: Operand): Channel | undefined {
  if (typeof operand === 'string') {
    const id = state.channelsByName.get(operand.trim().toLowerCase());
    return id === undefined ? undefined : state.channels.get(id);
  }
  const id = intOperand(operand);
  return id === undefined ? undefined : state.channels.get(id);
}

function findUser(state: RealmState, operand: Operand): User | undefined {
  if (typeof operand === 'string') {
    const id = state.usersByEmail.get(operand.toLowerCase());
    return id === undefined ? undefined : state.users.get(id);
  }
  const id = intOperand(operand);
  return id === undefined ? undefined : state.users.get(id);
}

/** §3.2: a non-negated accessible channel term (last one wins) or `channels:public`, and no `is:` other than resolved. */
function includeHistory(ctx: NarrowContext, terms: readonly NarrowTerm[]): boolean {
  let include = false;
  for (const t of terms) {
    if (t.negated) continue;
    if (CHANNEL_OPS.has(t.operator)) {
      const channel = findChannel(ctx.state, t.operand);
      include = channel !== undefined && ctx.canReadHistory(channel);
    } else if (
      CHANNELS_OPS.has(t.operator) &&
      (t.operand === 'public' || t.operand === 'web-public') &&
      !ctx.guest
    ) {
      include = true;
    }
  }
  if (terms.some((t) => t.operator === 'is' && t.operand !== 'resolved')) include = false;
  return include;
}

interface Candidate {
  readonly list: IdList;
  /** Indexes into `tests` that the list implies. */
  readonly implies: readonly number[];
  readonly channel: number | null;
  /** A direct-message conversation's list (every message readable). */
  readonly conversation: boolean;
}

/**
 * Resolves parsed narrow terms for one user into a plan over the message store (names to ids,
 * access rules), or Zulip's BAD_NARROW error.
 *
 * @example
 * ```ts
 * const hamlet = realm.users.get(4)!;
 * const built = buildNarrow(realm, hamlet, [{ operator: 'channel', operand: 'Verona', negated: false }]);
 * expect(built.ok).toBe(true);
 * const unknown = buildNarrow(realm, hamlet, [{ operator: 'channel', operand: 'Atlantis', negated: false }]);
 * expect(unknown).toMatchObject({ ok: false, error: { code: 'BAD_NARROW' } });
 * ```
 */
export function buildNarrow(state: RealmState, user: User, terms: readonly NarrowTerm[]): BuildResult {
  const ctx = new NarrowContext(state, user);
  const store = state.messages;
  const me = user.user_id;
  const flagTests: FlagTest[] = [];
  const tests: MessageTest[] = [];
  const lists: Candidate[] = [];
  let empty = false;
  let single: number | null = null;
  let channelTerm: number | null = null;
  let positiveChannel: number | null = null;
  let positiveChannelAt = -1;
  let channelMark = false;
  let dmMark = false;
  const mark = (channel: boolean, dm: boolean) => {
    channelMark ||= channel;
    dmMark ||= dm;
    if (channelMark && dmMark)
      throw new NarrowError('No message can be both a channel message and direct message');
  };
  const add = (negated: boolean, test: MessageTest): number => {
    tests.push(negated ? (c, i) => !test(c, i) : test);
    return tests.length - 1;
  };
  const addFlag = (negated: boolean, mask: number, set: boolean) =>
    flagTests.push({ mask, set: negated ? !set : set });
  const matchNothing = (negated: boolean) => {
    if (!negated) empty = true;
  };
  const conversationOf = (participants: Iterable<number>) =>
    store.conversations.ids.get(conversationKey(participants));

  const apply = (t: NarrowTerm) => {
    const { operator, operand, negated } = t;
    switch (operator) {
      case 'channel':
      case 'stream': {
        mark(!negated, false);
        const channel = findChannel(state, operand);
        if (channel === undefined) throw new NarrowError(`unknown channel ${pyStr(operand)}`);
        const id = channel.stream_id;
        const at = add(negated, (c, i) => c.recipient[i] === id);
        channelTerm ??= id;
        if (!negated) {
          positiveChannel = id;
          positiveChannelAt = at;
          lists.push({
            list: store.byChannel.get(id) ?? EMPTY_IDS,
            implies: [at],
            channel: id,
            conversation: false,
          });
        }
        return;
      }
      case 'channels':
      case 'streams': {
        mark(!negated, false);
        if (operand !== 'public' && operand !== 'web-public')
          throw new NarrowError(`unknown channels operand ${pyStr(operand)}`);
        const webPublic = operand === 'web-public';
        const cache = new Map<number, boolean>();
        add(negated, (c, i) => {
          const r = c.recipient[i]!;
          if (r <= 0) return false;
          let ok = cache.get(r);
          if (ok === undefined) {
            const ch = state.channels.get(r);
            ok =
              ch !== undefined &&
              (webPublic ? ch.is_web_public : !ch.invite_only && ch.history_public_to_subscribers);
            cache.set(r, ok);
          }
          return ok;
        });
        return;
      }
      case 'topic': {
        mark(!negated, false);
        const key = store.foldedTopics.ids.get(String(operand).toLowerCase());
        const at = add(
          negated,
          key === undefined ? () => false : (c, i) => c.recipient[i]! > 0 && c.topicKey[i] === key,
        );
        if (!negated && positiveChannel !== null) {
          const list =
            key === undefined ? EMPTY_IDS : (store.byTopic.get(positiveChannel)?.get(key) ?? EMPTY_IDS);
          lists.push({
            list,
            implies: [at, positiveChannelAt],
            channel: positiveChannel,
            conversation: false,
          });
        } else if (!negated) pendingTopics.push({ key, at });
        return;
      }
      case 'sender': {
        const sender = findUser(state, operand);
        if (sender === undefined) throw new NarrowError(`unknown user ${pyStr(operand)}`);
        const id = sender.user_id;
        const at = add(negated, (c, i) => c.sender[i] === id);
        if (!negated)
          lists.push({
            list: store.bySender.get(id) ?? EMPTY_IDS,
            implies: [at],
            channel: null,
            conversation: false,
          });
        return;
      }
      case 'dm':
      case 'pm-with':
      case 'pm_with': {
        mark(false, !negated);
        const others = resolveUserList(state, operand);
        if (others === null) throw new NarrowError(`unknown user in ${pyStr(operand)}`);
        if (others.length === 0) {
          if (negated) return;
          empty = true;
          return;
        }
        const cid = conversationOf([...others, me]);
        if (cid === undefined) {
          matchNothing(negated);
          return;
        }
        const at = add(negated, (c, i) => c.recipient[i] === -cid);
        if (!negated)
          lists.push({
            list: store.byConversation.get(cid) ?? EMPTY_IDS,
            implies: [at],
            channel: null,
            conversation: true,
          });
        return;
      }
      case 'dm-including': {
        mark(false, !negated);
        const other = findUser(state, operand);
        if (other === undefined) throw new NarrowError(`unknown user ${pyStr(operand)}`);
        const id = other.user_id;
        if (id === me) add(negated, (c, i) => c.recipient[i]! < 0);
        else add(negated, (c, i) => c.recipient[i]! < 0 && ctx.members(-c.recipient[i]!).includes(id));
        return;
      }
      case 'group-pm-with':
      case 'group_pm_with': {
        mark(false, !negated);
        const other = findUser(state, operand);
        if (other === undefined) throw new NarrowError(`unknown user ${pyStr(operand)}`);
        const id = other.user_id;
        add(negated, (c, i) => {
          if (c.recipient[i]! >= 0) return false;
          const m = ctx.members(-c.recipient[i]!);
          return m.length >= 3 && m.includes(id) && m.includes(me);
        });
        return;
      }
      case 'is':
        applyIs(String(operand), negated);
        return;
      case 'in': {
        if (operand === 'all') return;
        if (operand !== 'home') throw new NarrowError(`unknown 'in' operand ${pyStr(operand)}`);
        const muting = ctx.mutingInfo;
        add(
          !negated,
          (c, i) => c.recipient[i]! > 0 && excludedFromHome(muting, c.recipient[i]!, c.topicKey[i]!),
        );
        return;
      }
      case 'has': {
        const bit = Object.hasOwn(HAS_BITS, String(operand)) ? HAS_BITS[String(operand)] : undefined;
        if (bit === undefined) throw new NarrowError(`unknown 'has' operand ${pyStr(operand)}`);
        add(negated, (c, i) => (c.bits[i]! & bit) !== 0);
        return;
      }
      case 'id': {
        const text = pyStr(operand);
        if (typeof operand === 'boolean' || !/^[0-9]+$/.test(text) || Number(text) > 2147483647) {
          throw new NarrowError('Invalid message ID');
        }
        const id = Number(text);
        add(negated, (c, i) => c.ids[i] === id);
        if (!negated) single = single === null || single === id ? id : -1;
        return;
      }
      case 'near':
        return;
      default:
        throw new NarrowError(`unknown operator ${operator}`);
    }
  };
  const pendingTopics: Array<{ key: number | undefined; at: number }> = [];

  const applyIs = (operand: string, negated: boolean) => {
    switch (operand) {
      case 'dm':
      case 'private':
        mark(negated, !negated);
        addFlag(negated, FLAG_BITS.is_private, true);
        return;
      case 'starred':
        addFlag(negated, FLAG_BITS.starred, true);
        return;
      case 'unread':
        addFlag(negated, FLAG_BITS.read, false);
        return;
      case 'mentioned':
        addFlag(negated, MENTION_BITS, true);
        return;
      case 'alerted':
        addFlag(negated, FLAG_BITS.has_alert_word, true);
        return;
      case 'resolved':
        add(negated, (c, i) => c.recipient[i]! > 0 && ctx.isResolvedTopic(c.topic[i]!));
        return;
      case 'followed': {
        const muting = ctx.mutingInfo;
        add(
          negated,
          (c, i) =>
            c.recipient[i]! > 0 &&
            muting.policies.get(c.recipient[i]!)?.get(c.topicKey[i]!) === VisibilityPolicy.followed,
        );
        return;
      }
      case 'muted': {
        const muting = ctx.mutingInfo;
        add(
          negated,
          (c, i) => c.recipient[i]! > 0 && excludedFromHome(muting, c.recipient[i]!, c.topicKey[i]!),
        );
        return;
      }
      default:
        throw new NarrowError(`unknown 'is' operand ${operand}`);
    }
  };

  const history = includeHistory(ctx, terms);
  const search: string[] = [];
  try {
    for (const t of terms) {
      if (t.operator === 'search') search.push(String(t.operand));
      else apply(t);
    }
  } catch (e) {
    if (e instanceof NarrowError) return { ok: false, error: badNarrow(e.desc) };
    throw e;
  }
  // A topic term before the channel term still narrows to the channel's topic list.
  if (positiveChannel !== null) {
    for (const p of pendingTopics) {
      const list =
        p.key === undefined ? EMPTY_IDS : (store.byTopic.get(positiveChannel)?.get(p.key) ?? EMPTY_IDS);
      lists.push({ list, implies: [p.at, positiveChannelAt], channel: positiveChannel, conversation: false });
    }
  }
  if (search.length > 0) {
    // Zulip joins every search operand into one (non-negated) query, applied after the other terms.
    const q = parseSearch(search.join(' '));
    add(false, (c, i) => {
      const r = c.recipient[i]!;
      return searchMatches(q, c.content[i]!, r > 0 ? nameOf(store.topics, c.topic[i]!) : '');
    });
  }
  // An id term beats any list (one candidate); otherwise the smallest list drives.
  let drive: Candidate | null = null;
  if (single === null)
    for (const l of lists) if (drive === null || l.list.count < drive.list.count) drive = l;
  const implied = new Set(drive?.implies ?? []);
  return {
    ok: true,
    plan: {
      ctx,
      history,
      empty: empty || single === -1,
      drive: drive?.list ?? null,
      driveChannel: drive?.channel ?? null,
      driveConversation: drive?.conversation ?? false,
      single: single === -1 ? null : single,
      flagTests,
      messageTests: tests.filter((_, i) => !implied.has(i)),
      channelTerm,
      dmNarrow: dmMark,
    },
  };
}

const HAS_BITS: Readonly<Record<string, number>> = {
  link: MESSAGE_BITS.has_link,
  image: MESSAGE_BITS.has_image,
  attachment: MESSAGE_BITS.has_attachment,
  reaction: MESSAGE_BITS.has_reaction,
};

/** User ids of a `dm` operand (emails, comma-separated, or ids), or null when one is unknown. */
function resolveUserList(state: RealmState, operand: Operand): number[] | null {
  const out: number[] = [];
  if (Array.isArray(operand)) {
    for (const id of operand) {
      if (!state.users.has(id)) return null;
      out.push(id);
    }
    return out;
  }
  if (typeof operand !== 'string') return null;
  for (const email of operand.split(',')) {
    const id = state.usersByEmail.get(email.toLowerCase());
    if (id === undefined) return null;
    out.push(id);
  }
  return out;
}
