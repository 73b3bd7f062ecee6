import { FLAG_BITS, MESSAGE_BITS } from '../core/messages/flags';
import { conversationKey } from '../core/messages/interner';
import { buildMessageStoreFromColumns } from '../core/messages/store';
import type { Reaction, RoleValue as Role } from '../core/model/records';
import { createRealm } from '../core/snapshot/create';
import type { RealmSnapshotInput, SnapshotRecordInput } from '../core/snapshot/format';
import type { RealmState } from '../core/state';
import { seededRandom } from '../core/context';
import { Prng } from './prng';
import { applyTraffic } from './traffic';

/**
 * A deterministic generator of realistic organizations: roles, groups, channels whose sizes and
 * traffic follow long tails, subscriptions (some left, some muted), topics per channel, direct
 * and group-direct messages, mentions, stars, per-user unread ratios, muted and followed topics.
 * The realm's small records go through `createRealm` (so they carry exactly its defaults); the
 * messages and UserMessage rows are built straight into the columnar store, never as objects.
 */
export type Preset = 'small' | 'medium' | 'large';

export interface SimulateOptions {
  readonly preset?: Preset;
  readonly users?: number;
  readonly channels?: number;
  readonly messages?: number;
  readonly seed?: number;
  /** Share of direct messages (default 0.1). */
  readonly dmRatio?: number;
  /** Mean share of a user's rows left unread (default 0.25; each user varies around it). */
  readonly unreadRatio?: number;
  /** User 2 subscribes to every channel, never sends and reads nothing (default true). */
  readonly heavyUser?: boolean;
  /**
   * Messages sent after the history is built, through `sendMessage` (as `applyTraffic` does), spread
   * over the day after the realm's `now` (default 0: presets are unchanged).
   */
  readonly traffic?: number;
  /** Called as phases progress (for the CLI's progress bar). */
  readonly onProgress?: (phase: string, done: number, total: number) => void;
}

/**
 * The sizes of the `simulateRealm` presets.
 *
 * @example
 * ```ts
 * expect(PRESETS.large).toEqual({ users: 10_000, channels: 1000, messages: 1_000_000 });
 * ```
 */
export const PRESETS: Readonly<Record<Preset, { users: number; channels: number; messages: number }>> = {
  small: { users: 40, channels: 8, messages: 1500 },
  medium: { users: 1000, channels: 100, messages: 100_000 },
  large: { users: 10_000, channels: 1000, messages: 1_000_000 },
};

/**
 * The user who, in a simulated realm with `heavyUser`, is subscribed everywhere and has read nothing.
 *
 * @example
 * ```ts
 * const org = simulateRealm({ preset: 'small', messages: 200 });
 * expect(org.users.get(HEAVY_USER_ID)?.is_active).toBe(true);
 * ```
 */
export const HEAVY_USER_ID = 2;

const NOW = 1_795_219_200;
const WORDS = (
  'lunch deploy release bug fix design review meeting plan roadmap budget hiring customer support ' +
  'server database index query cache latency memory outage alert monitor backup migration schema ' +
  'frontend backend mobile android ios desktop search narrow topic channel message unread star ' +
  'weekend coffee travel conference talk slides paper draft feedback question answer idea proposal'
).split(' ');

interface Channel {
  readonly id: number;
  readonly subscribers: Int32Array;
  /** Users who left: their id and the message index at which they left. */
  readonly left: Array<[number, number]>;
  readonly topics: string[];
  readonly senders: Int32Array;
}

/**
 * A realistic organization, generated deterministically from a seed (see the module comment above).
 * Presets: `small` (40 users, 1,500 messages), `medium` (1,000 users, 100,000 messages), `large`
 * (10,000 users, 1,000,000 messages); any count can be overridden.
 *
 * @example
 * ```ts
 * const org = simulateRealm({ preset: 'small', seed: 7, messages: 300 });
 * expect(org.messages.count).toBe(300);
 * const me = actAs(org, HEAVY_USER_ID, { now: org.now ?? 0 });
 * const r = me.run('updateMessageFlagsForNarrow', {
 *   anchor: 'oldest', num_before: 0, num_after: 5000, narrow: [], op: 'add', flag: 'read',
 * });
 * expect(r.body).toMatchObject({ result: 'success', found_newest: true });
 * ```
 */
export function simulateRealm(options: SimulateOptions = {}): RealmState {
  const preset = PRESETS[options.preset ?? 'small'];
  const nUsers = Math.max(8, options.users ?? preset.users);
  const nChannels = Math.max(2, options.channels ?? preset.channels);
  const nMessages = Math.max(0, options.messages ?? preset.messages);
  const dmRatio = options.dmRatio ?? 0.1;
  const unreadRatio = options.unreadRatio ?? 0.25;
  const heavy = options.heavyUser ?? true;
  const progress = options.onProgress ?? (() => {});
  const rng = new Prng(options.seed ?? 1);

  // --- users ---------------------------------------------------------------------------------
  progress('users', 0, nUsers);
  const nAdmins = Math.max(1, Math.round(nUsers / 500));
  const nMods = Math.max(1, Math.round(nUsers / 300));
  const nBots = Math.max(1, Math.round(nUsers / 100));
  const users: Array<SnapshotRecordInput<'users'>> = [];
  const humans: number[] = [];
  const activeHumans: number[] = [];
  const guests = new Set<number>();
  for (let id = 1; id <= nUsers; id++) {
    const isBot = id > nUsers - nBots;
    let role: Role = 400;
    if (id === 1) role = 100;
    else if (id === HEAVY_USER_ID && heavy) role = 400;
    else if (id <= 2 + nAdmins) role = 200;
    else if (id <= 2 + nAdmins + nMods) role = 300;
    else if (!isBot && id % 20 === 7) role = 600;
    const isActive = isBot || id <= 2 || !rng.chance(0.01);
    const joinedDaysAgo = 1 + rng.int(1500);
    users.push({
      user_id: id,
      email: isBot ? `bot${id}-bot@example.org` : `user${id}@example.org`,
      full_name: isBot ? `Bot ${id}` : `User ${id}`,
      role,
      is_active: isActive,
      is_bot: isBot,
      bot_type: isBot ? 1 : null,
      bot_owner_id: isBot ? 1 : null,
      date_joined: new Date((NOW - joinedDaysAgo * 86400) * 1000).toISOString(),
      api_key: rng.alnum(32),
    });
    if (!isBot) {
      humans.push(id);
      if (isActive) activeHumans.push(id);
      if (role === 600) guests.add(id);
    }
  }

  // --- groups --------------------------------------------------------------------------------
  const nGroups = Math.max(2, Math.round(nChannels / 10));
  const groups: Array<SnapshotRecordInput<'user_groups'>> = [];
  for (let g = 0; g < nGroups; g++) {
    const size = 3 + rng.skewed(Math.min(60, humans.length - 1), 2);
    const members = [...new Set(Array.from({ length: size }, () => rng.pick(humans)))].sort((a, b) => a - b);
    groups.push({
      id: 100 + g,
      name: `team-${g}`,
      description: `Team ${g}`,
      members,
      creator_id: 1,
      date_created: NOW - 86400 * 400,
    });
  }

  // --- channels and subscriptions --------------------------------------------------------------
  progress('channels', 0, nChannels);
  const channels: Array<SnapshotRecordInput<'channels'>> = [];
  const subscriptions: Array<SnapshotRecordInput<'subscriptions'>> = [];
  const sim: Channel[] = [];
  const perm = Int32Array.from(humans);
  const weights = new Float64Array(nChannels);
  const trafficRank = rng.shuffle(Array.from({ length: nChannels }, (_, i) => i + 1));
  for (let i = 0; i < nChannels; i++) {
    const id = i + 1;
    const rank = i + 1;
    const isPrivate = rank > 3 && rng.chance(0.15);
    const webPublic = !isPrivate && rank > 1 && rng.chance(0.03);
    channels.push({
      stream_id: id,
      name: `channel-${id}`,
      description: `Channel ${id}`,
      invite_only: isPrivate,
      is_web_public: webPublic,
      history_public_to_subscribers: !isPrivate || rng.chance(0.6),
      is_archived: rank > 10 && rng.chance(0.02),
      creator_id: 1,
      date_created: NOW - 86400 * 700,
      ...(isPrivate && rng.chance(0.3) ? { can_subscribe_group: 100 + rng.int(nGroups) } : {}),
    });
    // Long-tailed sizes: the biggest channel holds half the organization, the tail a handful.
    const size = Math.max(2, Math.min(humans.length, Math.round((humans.length * 0.5) / rank)));
    for (let k = 0; k < size; k++) {
      const j = k + rng.int(perm.length - k);
      const x = perm[k]!;
      perm[k] = perm[j]!;
      perm[j] = x;
    }
    const members = Array.from(perm.subarray(0, size));
    if (heavy && !members.includes(HEAVY_USER_ID)) members.push(HEAVY_USER_ID);
    members.sort((a, b) => a - b);
    const active: number[] = [];
    const left: Array<[number, number]> = [];
    for (const u of members) {
      const leftChannel = u !== HEAVY_USER_ID && rng.chance(0.03);
      const muted = !leftChannel && u !== HEAVY_USER_ID && rng.chance(0.04);
      subscriptions.push({
        user_id: u,
        stream_id: id,
        active: !leftChannel,
        is_muted: muted,
        color: '#76ce90',
      });
      if (leftChannel) left.push([u, rng.int(Math.max(1, nMessages))]);
      else active.push(u);
    }
    const senders = active.filter((u) => u !== HEAVY_USER_ID || !heavy);
    const nTopics = 1 + rng.skewed(40, 1.5);
    const topics = Array.from({ length: nTopics }, (_, t) => {
      if (t === 0 && rng.chance(0.1)) return '';
      const name = `${rng.pick(WORDS)} ${rng.pick(WORDS)} ${t}`;
      return rng.chance(0.05) ? `✔ ${name}` : name;
    });
    sim.push({
      id,
      subscribers: Int32Array.from(active),
      left,
      topics,
      senders: Int32Array.from(senders.length ? senders : active),
    });
    weights[trafficRank[i]! - 1] = 1 / Math.pow(rank, 0.8);
  }
  const cumulative = new Float64Array(nChannels);
  let total = 0;
  for (let i = 0; i < nChannels; i++) cumulative[i] = total += weights[i]!;

  // --- muted and followed topics --------------------------------------------------------------
  const userTopics: Array<SnapshotRecordInput<'user_topics'>> = [];
  const seenTopics = new Set<string>();
  for (const u of activeHumans) {
    if (!rng.chance(0.3)) continue;
    for (let k = 0; k < 1 + rng.int(4); k++) {
      const c = sim[rng.skewed(sim.length, 1.5)]!;
      const topic = rng.pick(c.topics);
      const key = `${u}:${c.id}:${topic.toLowerCase()}`;
      if (seenTopics.has(key)) continue;
      seenTopics.add(key);
      userTopics.push({
        user_id: u,
        stream_id: c.id,
        topic_name: topic,
        visibility_policy: rng.chance(0.5) ? 1 : 3,
        last_updated: NOW - 86400,
      });
    }
  }

  progress('realm', 0, 1);
  const skeleton: RealmSnapshotInput = {
    format: 'chat-realm.snapshot/1',
    now: NOW,
    server: { web_public_streams_enabled: true },
    realm: {
      id: 1,
      string_id: 'sim',
      name: 'Simulated organization',
      uri: 'https://sim.example.org',
      enable_spectator_access: true,
    },
    users,
    user_groups: groups,
    channels,
    subscriptions,
    user_topics: userTopics,
  };
  const base = createRealm(skeleton, { random: seededRandom(options.seed ?? 1) });

  // --- messages (columns) ---------------------------------------------------------------------
  const ids = new Int32Array(nMessages);
  const recipient = new Int32Array(nMessages);
  const sender = new Int32Array(nMessages);
  const timestamp = new Float64Array(nMessages);
  const bits = new Uint8Array(nMessages);
  const content = new Array<string>(nMessages);
  const topicCol = new Array<string | undefined>(nMessages);
  const convCol = new Array<string | undefined>(nMessages);
  /** Direct messages: participants, by message index. */
  const dmMembers = new Map<number, readonly number[]>();
  const contentPool = Array.from({ length: 512 }, (_, k) => {
    const words = Array.from({ length: 4 + rng.int(12) }, () => rng.pick(WORDS)).join(' ');
    return k % 13 === 0 ? `${words} https://example.org/${k}` : words;
  });
  const reactions: Array<readonly [number, readonly Reaction[]]> = [];
  const start = NOW - 86400 * 700;
  const dmPool = activeHumans.filter((u) => !heavy || u !== HEAVY_USER_ID);
  for (let m = 0; m < nMessages; m++) {
    if ((m & 0xffff) === 0) progress('messages', m, nMessages);
    const id = m + 1;
    ids[m] = id;
    timestamp[m] = start + Math.floor((m * 86400 * 699) / Math.max(1, nMessages));
    const text = contentPool[rng.int(contentPool.length)]!;
    content[m] = text;
    let b = text.includes('https://') ? MESSAGE_BITS.has_link : 0;
    if (rng.chance(0.03)) b |= MESSAGE_BITS.has_image | MESSAGE_BITS.has_attachment;
    if (!rng.chance(dmRatio) || dmPool.length < 3) {
      let lo = 0;
      let hi = nChannels - 1;
      const x = rng.next() * total;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cumulative[mid]! < x) lo = mid + 1;
        else hi = mid;
      }
      const c = sim[lo]!;
      recipient[m] = c.id;
      topicCol[m] = c.topics[rng.skewed(c.topics.length, 2)]!;
      sender[m] = c.senders.length > 0 ? c.senders[rng.int(c.senders.length)]! : 1;
    } else {
      // A few people write most direct messages (a long tail here too).
      const from = dmPool[rng.skewed(dmPool.length, 3)]!;
      const r = rng.next();
      let members: number[];
      if (r < 0.03) members = [from];
      else if (r < 0.83) members = [from, pickOther(rng, dmPool, from)];
      else members = [...new Set([from, ...Array.from({ length: 2 + rng.int(3) }, () => rng.pick(dmPool))])];
      const sorted = [...new Set(members)].sort((a, c) => a - c);
      recipient[m] = 0;
      sender[m] = from;
      convCol[m] = conversationKey(sorted);
      dmMembers.set(m, sorted);
    }
    if (rng.chance(0.05)) {
      reactions.push([
        id,
        [{ user_id: sender[m]!, emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' }],
      ]);
    }
    bits[m] = b;
  }

  // --- UserMessage rows: count, then fill ----------------------------------------------------
  progress('rows', 0, nMessages);
  const channelIndex = (streamId: number) => sim[streamId - 1]!;
  const counts = new Int32Array(nUsers + 1);
  for (let m = 0; m < nMessages; m++) {
    const r = recipient[m]!;
    if (r > 0) {
      const c = channelIndex(r);
      const subs = c.subscribers;
      for (let k = 0; k < subs.length; k++) counts[subs[k]!]!++;
      const left = c.left;
      for (let k = 0; k < left.length; k++) if (m < left[k]![1]) counts[left[k]![0]]!++;
    } else {
      const members = dmMembers.get(m)!;
      for (let k = 0; k < members.length; k++) counts[members[k]!]!++;
    }
  }
  const rowIds: Int32Array[] = [];
  const rowFlags: Uint16Array[] = [];
  const fill = new Int32Array(nUsers + 1);
  /** Per-user unread share as a 16-bit threshold: most users read nearly everything, a tail reads little. */
  const unreadOf = new Int32Array(nUsers + 1);
  for (let u = 1; u <= nUsers; u++) {
    rowIds[u] = new Int32Array(counts[u]!);
    rowFlags[u] = new Uint16Array(counts[u]!);
    const share =
      heavy && u === HEAVY_USER_ID ? 1 : Math.min(0.98, unreadRatio * 2 * Math.pow(rng.next(), 2));
    unreadOf[u] = Math.round(share * 65536);
  }
  // One random draw per row: the low 16 bits decide read, the high bits a rare star.
  const rowFlagsFor = (u: number, from: number, extra: number) => {
    const x = rng.u32();
    let f = extra;
    if (u === from || (x & 0xffff) >= unreadOf[u]!) f |= FLAG_BITS.read;
    if (x >>> 16 < 328) f |= FLAG_BITS.starred;
    return f;
  };
  for (let m = 0; m < nMessages; m++) {
    if ((m & 0xffff) === 0) progress('rows', m, nMessages);
    const id = m + 1;
    const from = sender[m]!;
    const r = recipient[m]!;
    if (r > 0) {
      const c = channelIndex(r);
      const subs = c.subscribers;
      const wildcard = rng.chance(0.003) ? FLAG_BITS.stream_wildcard_mentioned : 0;
      const mentioned = rng.chance(0.02) && subs.length > 0 ? subs[rng.int(subs.length)]! : -1;
      const alert = rng.chance(0.002) ? FLAG_BITS.has_alert_word : 0;
      const extra = wildcard | alert;
      for (let k = 0; k < subs.length; k++) {
        const u = subs[k]!;
        const at = fill[u]!++;
        rowIds[u]![at] = id;
        rowFlags[u]![at] = rowFlagsFor(u, from, u === mentioned ? extra | FLAG_BITS.mentioned : extra);
      }
      const left = c.left;
      for (let k = 0; k < left.length; k++) {
        const [u, leftAt] = left[k]!;
        if (m >= leftAt) continue;
        const at = fill[u]!++;
        rowIds[u]![at] = id;
        rowFlags[u]![at] = rowFlagsFor(u, from, 0) | FLAG_BITS.read;
      }
    } else {
      const members = dmMembers.get(m)!;
      for (let k = 0; k < members.length; k++) {
        const u = members[k]!;
        const at = fill[u]!++;
        rowIds[u]![at] = id;
        rowFlags[u]![at] = rowFlagsFor(u, from, FLAG_BITS.is_private);
      }
    }
  }
  // Channel rows were pushed subscriber by subscriber, so each user's ids are already ascending.
  const rows = new Map<number, { ids: Int32Array; flags: Uint16Array }>();
  for (let u = 1; u <= nUsers; u++) if (counts[u]! > 0) rows.set(u, { ids: rowIds[u]!, flags: rowFlags[u]! });

  progress('store', 0, 1);
  const messages = buildMessageStoreFromColumns(
    { ids, recipient, sender, timestamp, bits, content, topics: topicCol, conversations: convCol },
    rows,
    reactions,
  );
  progress('store', 1, 1);
  const built: RealmState = { ...base, messages };
  const traffic = options.traffic ?? 0;
  if (traffic <= 0) return built;
  return applyTraffic(built, { messages: traffic, seed: (options.seed ?? 1) + 1, start: NOW }).state;
}

function pickOther(rng: Prng, pool: readonly number[], not: number): number {
  for (;;) {
    const u = pool[rng.skewed(pool.length, 2)]!;
    if (u !== not) return u;
  }
}
