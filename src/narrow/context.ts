import { CHANNEL_SETTING_RULES, hasPermission } from '../core/permissions/setting-rules';
import { hasContentAccess, isSubscribed } from '../core/permissions/channels';
import { isGuest } from '../core/permissions/roles';
import { nameOf } from '../core/messages/interner';
import { EMPTY_ROWS, type UserRows } from '../core/messages/rows';
import { VisibilityPolicy, type Channel, type User } from '../core/model/records';
import type { RealmState } from '../core/state';

/**
 * What evaluating a narrow for one user needs from the realm, computed lazily and cached for the
 * duration of one request: channel access, muting, conversation membership. Nothing here scans
 * the organization; every answer is computed the first time a message asks for it.
 */
export class NarrowContext {
  readonly rows: UserRows;
  readonly guest: boolean;
  private readonly access: AccessMemo;
  private readonly convMembers = new Map<number, readonly number[]>();
  private readonly resolvedTopics = new Map<number, boolean>();
  private muting: Muting | undefined;

  constructor(
    readonly state: RealmState,
    readonly user: User,
  ) {
    this.rows = state.messages.rows.get(user.user_id) ?? EMPTY_ROWS;
    this.guest = isGuest(user);
    this.access = accessMemo(state, user);
  }

  /**
   * Whether every channel's rows are candidates for this user (no channel fails the access rule),
   * so scans can skip the per-row check. Memoized on the identity of the inputs (subscriptions,
   * channels, groups, the user record), so a run of requests pays for it once.
   */
  get allRowsReadable(): boolean {
    const memo = this.access;
    if (memo.all === undefined) {
      memo.all = true;
      for (const streamId of this.state.channels.keys()) {
        if (!this.rowChannelReadable(streamId)) {
          memo.all = false;
          break;
        }
      }
    }
    return memo.all;
  }

  get userId(): number {
    return this.user.user_id;
  }

  /**
   * Whether the user's rows in this channel are candidates outside history mode: public channel
   * and not a guest, a non-guest allowed to subscribe or add subscribers, or actively subscribed.
   */
  rowChannelReadable(streamId: number): boolean {
    // A small array indexed by channel id (0 unknown, 1 yes, 2 no): this runs once per row.
    const cache = this.access.cache;
    const known = streamId < cache.length ? cache[streamId]! : 0;
    if (known !== 0) return known === 1;
    let ok = this.access.overflow.get(streamId);
    if (ok === undefined) {
      ok = this.computeReadable(streamId);
      if (streamId < cache.length) cache[streamId] = ok ? 1 : 2;
      else this.access.overflow.set(streamId, ok);
    }
    return ok;
  }

  private computeReadable(streamId: number): boolean {
    const { state, user } = this;
    if (isSubscribed(state, streamId, user.user_id)) return true;
    const channel = state.channels.get(streamId);
    if (channel === undefined || this.guest) return false;
    if (!channel.invite_only) return true;
    return (
      hasPermission(state, user, CHANNEL_SETTING_RULES.can_subscribe_group, channel.can_subscribe_group) ||
      hasPermission(
        state,
        user,
        CHANNEL_SETTING_RULES.can_add_subscribers_group,
        channel.can_add_subscribers_group,
      )
    );
  }

  /** Zulip's `can_access_stream_history`: the condition for history mode on a channel term. */
  canReadHistory(channel: Channel): boolean {
    if (channel.is_web_public) return true;
    if (!channel.invite_only && channel.history_public_to_subscribers && !this.guest) return true;
    return channel.history_public_to_subscribers && hasContentAccess(this.state, this.user, channel);
  }

  /** Participants of a direct-message conversation, sorted. */
  members(conversationId: number): readonly number[] {
    let m = this.convMembers.get(conversationId);
    if (m === undefined) {
      m = nameOf(this.state.messages.conversations, conversationId).split(',').map(Number);
      this.convMembers.set(conversationId, m);
    }
    return m;
  }

  /** Whether an interned exact topic is resolved (starts with the check mark and a space). */
  isResolvedTopic(topicId: number): boolean {
    let r = this.resolvedTopics.get(topicId);
    if (r === undefined) {
      r = nameOf(this.state.messages.topics, topicId).startsWith('✔ ');
      this.resolvedTopics.set(topicId, r);
    }
    return r;
  }

  get mutingInfo(): Muting {
    this.muting ??= mutingMemo(this.state, this.user.user_id);
    return this.muting;
  }
}

/**
 * Channel readability for one user, shared by every request whose inputs are the same objects:
 * the answers depend only on the subscriptions, the channels, the groups and the user record, all
 * immutable, so a run of requests (a client marking everything read) computes each answer once.
 */
interface AccessMemo {
  /** By channel id: 0 unknown, 1 readable, 2 not. */
  readonly cache: Uint8Array;
  /** Channel ids beyond the array. */
  readonly overflow: Map<number, boolean>;
  /** Every channel readable (undefined until asked). */
  all: boolean | undefined;
}

const accessMemos = new WeakMap<object, WeakMap<object, WeakMap<object, WeakMap<User, AccessMemo>>>>();

function accessMemo(state: RealmState, user: User): AccessMemo {
  let bySubs = accessMemos.get(state.subscriptions);
  if (!bySubs) accessMemos.set(state.subscriptions, (bySubs = new WeakMap()));
  let byChannels = bySubs.get(state.channels);
  if (!byChannels) bySubs.set(state.channels, (byChannels = new WeakMap()));
  let byUser = byChannels.get(state.groups);
  if (!byUser) byChannels.set(state.groups, (byUser = new WeakMap()));
  let memo = byUser.get(user);
  if (!memo) {
    memo = {
      cache: new Uint8Array(Math.min(state.channels.maxKey() + 1, 1 << 16)),
      overflow: new Map(),
      all: undefined,
    };
    byUser.set(user, memo);
  }
  return memo;
}

/** One user's muting: muted channels and per-(channel, folded topic) visibility policies. */
export interface Muting {
  readonly mutedChannels: ReadonlySet<number>;
  /** stream id → folded topic id → visibility policy (1 muted, 2 unmuted, 3 followed). */
  readonly policies: ReadonlyMap<number, ReadonlyMap<number, number>>;
  /** Whether the user muted anything at all (channel or topic). */
  readonly any: boolean;
}

/**
 * Muting memoized on the identity of its inputs (subscriptions, topic policies, the folded-topic
 * table), like channel access: building it walks every channel's subscriptions, which cost ~1 ms
 * per request on a 1,000-channel realm whenever a window held a wildcard mention.
 */
const mutingMemos = new WeakMap<object, WeakMap<object, WeakMap<object, Map<number, Muting>>>>();

function mutingMemo(state: RealmState, userId: number): Muting {
  let byTopics = mutingMemos.get(state.subscriptions);
  if (!byTopics) mutingMemos.set(state.subscriptions, (byTopics = new WeakMap()));
  let byFolded = byTopics.get(state.userTopics);
  if (!byFolded) byTopics.set(state.userTopics, (byFolded = new WeakMap()));
  let byUser = byFolded.get(state.messages.foldedTopics);
  if (!byUser) byFolded.set(state.messages.foldedTopics, (byUser = new Map()));
  let m = byUser.get(userId);
  if (m === undefined) byUser.set(userId, (m = buildMuting(state, userId)));
  return m;
}

function buildMuting(state: RealmState, userId: number): Muting {
  const mutedChannels = new Set<number>();
  // Subscriptions are stored by channel; a user's muted channels need a walk over channels, which
  // is bounded by the number of channels (not messages) and done at most once per request.
  for (const [streamId, subs] of state.subscriptions) {
    const sub = subs.get(userId);
    if (sub?.active && sub.is_muted) mutedChannels.add(streamId);
  }
  const policies = new Map<number, Map<number, number>>();
  let mutedTopics = 0;
  for (const t of state.userTopics.get(userId) ?? []) {
    const key = state.messages.foldedTopics.ids.get(t.topic_name.toLowerCase());
    if (t.visibility_policy === VisibilityPolicy.muted) mutedTopics++;
    if (key === undefined) continue;
    let perChannel = policies.get(t.stream_id);
    if (!perChannel) policies.set(t.stream_id, (perChannel = new Map()));
    perChannel.set(key, t.visibility_policy);
  }
  return { mutedChannels, policies, any: mutedChannels.size > 0 || mutedTopics > 0 };
}

/** Whether `in:home` excludes a channel message (muted topic, or muted channel without an unmuting policy). */
export function excludedFromHome(m: Muting, streamId: number, topicKey: number): boolean {
  const policy = m.policies.get(streamId)?.get(topicKey);
  if (policy === VisibilityPolicy.muted) return true;
  if (!m.mutedChannels.has(streamId)) return false;
  return policy !== VisibilityPolicy.unmuted && policy !== VisibilityPolicy.followed;
}
