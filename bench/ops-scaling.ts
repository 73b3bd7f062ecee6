/**
 * How the cost of one small request grows with the organization: every one of the 20 operations
 * (plus a few variants) runs a representative small request on a small realm (100 users, 10
 * channels, 10,000 messages) and on one 100× larger (10,000 / 1,000 / 1,000,000), both from
 * `simulateRealm`. Each request is checked to succeed (and to change the state where the operation
 * changes state), warmed up, then timed; the median per call is reported with the number of events,
 * recipients and response bytes, so a cost that grows only because the request legitimately
 * reaches more users can be told apart from an organization-wide scan.
 *
 * Run alone: `node --max-old-space-size=8000 --import tsx bench/ops-scaling.ts` (`--quick` for
 * fewer samples, `--only=name,name` to pick rows). Findings: bench/ops-scaling.md.
 */
import { seededRandom, type OpContext } from '../src/core/context';
import { nameOf } from '../src/core/messages/interner';
import type { MessageStore } from '../src/core/messages/store';
import { getRowFlags } from '../src/core/messages/rows';
import { runDecoded, type Actor, type AnyOperation } from '../src/core/operation';
import { edit } from '../src/core/result';
import { putSubscription } from '../src/core/state-edit';
import type { RealmState } from '../src/core/state';
import type { User } from '../src/core/model/records';
import {
  addNavigationView,
  createCustomProfileField,
  createSavedSnippet,
  deleteBotStorage,
  deleteTopic,
  editChannel,
  editScheduledMessage,
  editUserGroup,
  getLinkifiers,
  getOwnUser,
  getUsers,
  regenerateBotApiKey,
  removeFcmToken,
  reorderChannelFolders,
  sendTestPushNotification,
  unsubscribe,
  updateMessageFlagsForNarrow,
  updateProfileData,
  updateSettings,
  updateSubscriptionSettings,
} from '../src/ops/index';
import { HEAVY_USER_ID, simulateRealm } from '../src/simulate/index';

export interface OpsScalingRow {
  /** Operation name, with the variant after a colon. */
  readonly op: string;
  readonly request: string;
  readonly smallUs: number;
  readonly largeUs: number;
  /** largeUs / smallUs. */
  readonly ratio: number;
  readonly eventsSmall: number;
  readonly eventsLarge: number;
  /** Recipients summed over the events. */
  readonly recipientsSmall: number;
  readonly recipientsLarge: number;
  readonly usPerRecipientSmall: number;
  readonly usPerRecipientLarge: number;
  /** JSON length of the response body. */
  readonly bodySmall: number;
  readonly bodyLarge: number;
  /** How much the request's own output (recipients, body) grew: the growth a fair cost may follow. */
  readonly outputGrowth: number;
  /** ratio / max(1, outputGrowth) above 3. */
  readonly hotSpot: boolean;
}

export interface RealmSize {
  readonly users: number;
  readonly channels: number;
  readonly messages: number;
}

export const SMALL: RealmSize = { users: 100, channels: 10, messages: 10_000 };
export const LARGE: RealmSize = { users: 10_000, channels: 1_000, messages: 1_000_000 };

/** One benchmark case: a request built against a realm (ids are picked per realm, same shape). */
interface Case {
  readonly op: string;
  readonly fn: AnyOperation;
  /** Whether a success must return a new state. */
  readonly changes: boolean;
  readonly build: (fx: Fixture) => { actor: Actor; params: Record<string, unknown>; describe: string };
  /** Another state to run on (default `fx.state`). */
  readonly state?: (fx: Fixture) => RealmState;
}

/** The realm plus the ids each request uses, chosen by the same rules in both realms. */
interface Fixture {
  readonly state: RealmState;
  readonly ctx: OpContext;
  readonly owner: number;
  /** An ordinary active member (not the heavy user), subscribed to `privateChannel`. */
  readonly member: number;
  /** A small private channel `member` is subscribed to. */
  readonly privateChannel: number;
  /** The smallest public channel `member2` is subscribed to. */
  readonly publicChannel: number;
  readonly member2: number;
  readonly bot: number;
  readonly group: number;
  readonly profileField: number;
  /** A topic of `member` with ≥ 10 rows (for the flags narrow). */
  readonly flagsTopic: { stream: number; topic: string; count: number };
  /** A topic of about 5 messages in a small channel (for deleteTopic). */
  readonly smallTopic: { stream: number; topic: string; count: number; subscribers: number };
  /** An active guest. */
  readonly guest: number;
  /** `state` with the owner subscribed to `privateChannel` (changing privacy needs content access). */
  readonly ownerInPrivate: RealmState;
  /** `state` with `require_unique_names`. */
  readonly uniqueNames: RealmState;
  /** `state` where guests may only see the users they share a channel or a conversation with. */
  readonly restricted: RealmState;
}

// ---------------------------------------------------------------------------------------------
// realms

function activeSubscribers(state: RealmState, streamId: number): number[] {
  const out: number[] = [];
  for (const s of state.subscriptions.get(streamId)?.values() ?? []) if (s.active) out.push(s.user_id);
  return out;
}

const isPlainMember = (u: User | undefined): u is User =>
  u !== undefined && u.is_active && !u.is_bot && u.role === 400 && u.user_id !== HEAVY_USER_ID;

/** The topics of a channel with their message counts. */
function topicsOf(store: MessageStore, streamId: number): Array<{ topic: string; count: number }> {
  const out: Array<{ topic: string; count: number }> = [];
  for (const [key, list] of store.byTopic.get(streamId) ?? []) {
    out.push({ topic: nameOf(store.foldedTopics, key), count: list.count });
  }
  return out;
}

function topicIds(store: MessageStore, streamId: number, topic: string): number[] {
  const key = store.foldedTopics.ids.get(topic);
  const list = key === undefined ? undefined : store.byTopic.get(streamId)?.get(key);
  const out: number[] = [];
  for (const chunk of list?.chunks ?? []) for (const id of chunk) out.push(id);
  return out;
}

/**
 * A simulated realm plus the records the simulator does not generate (channel folders, a custom
 * profile field, a scheduled message, a push device, bot storage, linkifiers), and the ids used.
 */
export function buildFixture(size: RealmSize, seed = 1): Fixture {
  const base = simulateRealm({ ...size, seed });
  const now = base.now ?? 1_795_219_200;
  const owner = 1;
  const channels = [...base.channels.values()].filter((c) => !c.is_archived);
  const bySize = channels
    .map((c) => ({ c, subs: activeSubscribers(base, c.stream_id) }))
    .sort((a, b) => a.subs.length - b.subs.length || a.c.stream_id - b.c.stream_id);

  // A small private channel with an ordinary member in it.
  let privateChannel = 0;
  let member = 0;
  for (const { c, subs } of bySize) {
    if (!c.invite_only) continue;
    const m = subs.find((u) => isPlainMember(base.users.get(u)));
    if (m !== undefined) {
      privateChannel = c.stream_id;
      member = m;
      break;
    }
  }
  let publicChannel = 0;
  let member2 = 0;
  for (const { c, subs } of bySize) {
    if (c.invite_only) continue;
    const m = subs.find((u) => isPlainMember(base.users.get(u)));
    if (m !== undefined) {
      publicChannel = c.stream_id;
      member2 = m;
      break;
    }
  }
  if (privateChannel === 0 || publicChannel === 0) throw new Error('no suitable channels');

  // The member's topic (any channel they are in) with ≥ 10 of their rows, closest to 10 messages.
  const rows = base.messages.rows.get(member);
  let flagsTopic = { stream: 0, topic: '', count: Infinity };
  for (const { c, subs } of bySize) {
    if (!subs.includes(member)) continue;
    for (const t of topicsOf(base.messages, c.stream_id)) {
      if (t.count < 10 || t.count >= flagsTopic.count) continue;
      const ids = topicIds(base.messages, c.stream_id, t.topic);
      const mine = rows ? ids.filter((id) => getRowFlags(rows, id) !== undefined).length : 0;
      if (mine >= 10) flagsTopic = { stream: c.stream_id, topic: t.topic, count: t.count };
    }
  }
  if (flagsTopic.stream === 0) throw new Error('no topic with 10 rows for the member');

  // A public channel's topic of about 5 messages, in as small a channel as possible.
  let smallTopic = { stream: 0, topic: '', count: 0, subscribers: Infinity };
  let bestScore = Infinity;
  for (const { c, subs } of bySize) {
    if (c.invite_only) continue;
    for (const t of topicsOf(base.messages, c.stream_id)) {
      if (t.count < 5) continue;
      const score = (t.count - 5) * 1000 + subs.length;
      if (score < bestScore) {
        bestScore = score;
        smallTopic = { stream: c.stream_id, topic: t.topic, count: t.count, subscribers: subs.length };
      }
    }
  }
  if (smallTopic.stream === 0) throw new Error('no topic of ≥ 5 messages');

  const bot = [...base.users.values()].find((u) => u.is_bot && u.is_active && u.bot_owner_id === owner)!;
  const group = [...base.groups.values()].find((g) => !g.is_system_group)!.id;
  const profileField = 1;
  const guest = [...base.users.values()].find((u) => u.is_active && !u.is_bot && u.role === 600)!.user_id;

  const state = edit(base, (d) => {
    d.server.push_notifications = 'direct';
    for (let i = 1; i <= 5; i++) {
      d.channelFolders = d.channelFolders.set(i, {
        id: i,
        name: `folder ${i}`,
        description: '',
        order: i - 1,
        is_archived: false,
        creator_id: owner,
        date_created: now - 86_400,
      });
    }
    d.customProfileFields = d.customProfileFields.set(profileField, {
      id: profileField,
      name: 'Phone number',
      hint: '',
      type: 1,
      field_data: '',
      order: 0,
      display_in_profile_summary: false,
      required: false,
      editable_by_user: true,
      use_for_user_matching: false,
    });
    d.scheduledMessages = d.scheduledMessages.set(1, {
      scheduled_message_id: 1,
      sender_id: member,
      type: 'stream',
      to: privateChannel,
      topic: 'plans',
      content: 'See you at noon',
      scheduled_delivery_timestamp: now + 86_400,
      failed: false,
      delivered: false,
      read_by_sender: null,
    });
    d.pushDevices = d.pushDevices.set(member, [
      {
        user_id: member,
        kind: 'fcm',
        token: `fcm-${member}`,
        ios_app_id: null,
        registered_with_bouncer: false,
      },
    ]);
    d.botStorage = d.botStorage.set(bot.user_id, [
      { bot_id: bot.user_id, key: 'k1', value: 'v1' },
      { bot_id: bot.user_id, key: 'k2', value: 'v2' },
    ]);
    d.linkifiers = [
      {
        id: 1,
        pattern: '#(?P<id>[0-9]+)',
        url_template: 'https://github.com/zulip/zulip/issues/{id}',
        example_input: null,
        reverse_template: null,
        alternative_url_templates: [],
      },
    ];
  });
  const restricted = edit(state, (d) => {
    d.realm.can_access_all_users_group = d.systemGroups['role:members'];
  });
  const uniqueNames = edit(state, (d) => {
    d.realm.require_unique_names = true;
  });
  const memberSub = state.subscriptions.get(privateChannel)!.get(member)!;
  const ownerInPrivate = edit(state, (d) => putSubscription(d, { ...memberSub, user_id: owner }));
  return {
    state,
    ownerInPrivate,
    uniqueNames,
    restricted,
    guest,
    ctx: { now, random: seededRandom(7) },
    owner,
    member,
    privateChannel,
    publicChannel,
    member2,
    bot: bot.user_id,
    group,
    profileField,
    flagsTopic,
    smallTopic,
  };
}

// ---------------------------------------------------------------------------------------------
// the requests

const channelName = (fx: Fixture, id: number) => fx.state.channels.get(id)!.name;

export const CASES: readonly Case[] = [
  {
    op: 'updateSettings',
    fn: updateSettings,
    changes: true,
    build: (fx) => {
      const enter = fx.state.users.get(fx.member)!.settings.enter_sends;
      return {
        actor: { userId: fx.member },
        params: { enter_sends: !enter },
        describe: 'enter_sends flipped',
      };
    },
  },
  {
    op: 'updateSettings:email',
    fn: updateSettings,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.member },
      params: { email: `new-address-${fx.member}@example.org` },
      describe: 'start an email change',
    }),
  },
  {
    op: 'updateSettings:full_name',
    fn: updateSettings,
    changes: true,
    state: (fx) => fx.uniqueNames,
    build: (fx) => ({
      actor: { userId: fx.member },
      params: { full_name: 'Somebody New' },
      describe: 'full_name, realm requiring unique names',
    }),
  },
  {
    op: 'editChannel:private',
    fn: editChannel,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.owner },
      params: { stream_id: fx.privateChannel, description: 'A new description' },
      describe: `description of small private channel ${fx.privateChannel}`,
    }),
  },
  {
    op: 'editChannel:public',
    fn: editChannel,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.owner },
      params: { stream_id: fx.publicChannel, description: 'A new description' },
      describe: `description of small public channel ${fx.publicChannel}`,
    }),
  },
  {
    op: 'editChannel:make-public',
    fn: editChannel,
    changes: true,
    state: (fx) => fx.ownerInPrivate,
    build: (fx) => ({
      actor: { userId: fx.owner },
      params: { stream_id: fx.privateChannel, is_private: false },
      describe: `small private channel ${fx.privateChannel} made public`,
    }),
  },
  {
    op: 'updateSubscriptionSettings',
    fn: updateSubscriptionSettings,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.member },
      params: { subscription_data: [{ stream_id: fx.privateChannel, property: 'pin_to_top', value: true }] },
      describe: 'pin_to_top of one subscription',
    }),
  },
  {
    op: 'editScheduledMessage',
    fn: editScheduledMessage,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.member },
      params: { scheduled_message_id: 1, content: 'See you at one' },
      describe: 'content of a channel scheduled message',
    }),
  },
  {
    op: 'editUserGroup',
    fn: editUserGroup,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.owner },
      params: { user_group_id: fx.group, description: 'A renamed team' },
      describe: `description of group ${fx.group}`,
    }),
  },
  {
    op: 'getUsers',
    fn: getUsers,
    changes: false,
    build: (fx) => ({ actor: { userId: fx.member }, params: { user_ids: [1] }, describe: 'user_ids=[1]' }),
  },
  {
    op: 'getUsers:restricted-guest',
    fn: getUsers,
    changes: false,
    state: (fx) => fx.restricted,
    build: (fx) => ({
      actor: { userId: fx.guest },
      params: { user_ids: [1] },
      describe: 'user_ids=[1], by a guest in a realm limiting what guests see',
    }),
  },
  {
    op: 'createCustomProfileField',
    fn: createCustomProfileField,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.owner },
      params: { name: 'Pronouns', field_type: 1 },
      describe: 'a short-text field',
    }),
  },
  {
    op: 'unsubscribe:private',
    fn: unsubscribe,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.member },
      params: { subscriptions: [channelName(fx, fx.privateChannel)] },
      describe: 'self from a small private channel',
    }),
  },
  {
    op: 'unsubscribe:public',
    fn: unsubscribe,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.member2 },
      params: { subscriptions: [channelName(fx, fx.publicChannel)] },
      describe: 'self from a small public channel',
    }),
  },
  {
    op: 'updateMessageFlagsForNarrow',
    fn: updateMessageFlagsForNarrow,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.member },
      params: {
        anchor: 'oldest',
        num_before: 0,
        num_after: 9,
        narrow: [
          { operator: 'channel', operand: fx.flagsTopic.stream },
          { operator: 'topic', operand: fx.flagsTopic.topic },
        ],
        op: 'add',
        flag: 'starred',
      },
      describe: `star 10 of a ${fx.flagsTopic.count}-message topic`,
    }),
  },
  {
    op: 'deleteTopic',
    fn: deleteTopic,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.owner },
      params: { stream_id: fx.smallTopic.stream, topic_name: fx.smallTopic.topic },
      describe: `${fx.smallTopic.count}-message topic, ${fx.smallTopic.subscribers} subscribers`,
    }),
  },
  {
    op: 'updateProfileData',
    fn: updateProfileData,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.member },
      params: { data: [{ id: fx.profileField, value: '+1-555-0199' }] },
      describe: 'one text field',
    }),
  },
  {
    op: 'addNavigationView',
    fn: addNavigationView,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.member },
      params: { fragment: 'narrow/channel/9-x', is_pinned: true, name: 'My view' },
      describe: 'one view',
    }),
  },
  {
    op: 'createSavedSnippet',
    fn: createSavedSnippet,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.member },
      params: { title: 'Greeting', content: 'Hello there' },
      describe: 'one snippet',
    }),
  },
  {
    op: 'getOwnUser',
    fn: getOwnUser,
    changes: false,
    build: (fx) => ({ actor: { userId: fx.member }, params: {}, describe: '—' }),
  },
  {
    op: 'getLinkifiers',
    fn: getLinkifiers,
    changes: false,
    build: (fx) => ({ actor: { userId: fx.member }, params: {}, describe: '1 linkifier' }),
  },
  {
    op: 'sendTestPushNotification',
    fn: sendTestPushNotification,
    changes: false,
    build: (fx) => ({ actor: { userId: fx.member }, params: {}, describe: '1 FCM device, direct' }),
  },
  {
    op: 'regenerateBotApiKey',
    fn: regenerateBotApiKey,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.owner },
      params: { bot_id: fx.bot },
      describe: `bot ${fx.bot}, by its owner`,
    }),
  },
  {
    op: 'removeFcmToken',
    fn: removeFcmToken,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.member },
      params: { token: `fcm-${fx.member}` },
      describe: 'its only token',
    }),
  },
  {
    op: 'deleteBotStorage',
    fn: deleteBotStorage,
    changes: true,
    build: (fx) => ({ actor: { userId: fx.bot }, params: { keys: ['k1'] }, describe: '1 of 2 keys' }),
  },
  {
    op: 'reorderChannelFolders',
    fn: reorderChannelFolders,
    changes: true,
    build: (fx) => ({
      actor: { userId: fx.owner },
      params: { order: [2, 1, 3, 4, 5] },
      describe: '5 folders, swap two',
    }),
  },
];

// ---------------------------------------------------------------------------------------------
// timing

interface Sample {
  readonly us: number;
  readonly events: number;
  readonly recipients: number;
  readonly body: number;
  readonly describe: string;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Median µs per call: calls are grouped in batches long enough for the timer (≥ 0.2 ms), after a
 * warm-up; stops after `samples` batches or `budgetMs`.
 */
export function timeCall(fn: () => unknown, samples = 41, budgetMs = 1500): number {
  const w0 = performance.now();
  let warm = 0;
  while (warm < 30 || performance.now() - w0 < 100) {
    fn();
    warm++;
    if (performance.now() - w0 > budgetMs / 3) break;
  }
  const perCall = (performance.now() - w0) / warm;
  const batch = Math.max(1, Math.ceil(0.2 / Math.max(perCall, 1e-4)));
  const out: number[] = [];
  const t0 = performance.now();
  while (out.length < samples && (out.length < 5 || performance.now() - t0 < budgetMs)) {
    const s = performance.now();
    for (let i = 0; i < batch; i++) fn();
    out.push(((performance.now() - s) / batch) * 1000);
  }
  return median(out);
}

function runCase(c: Case, fx: Fixture, quick: boolean): Sample {
  const { actor, params, describe } = c.build(fx);
  const state = c.state?.(fx) ?? fx.state;
  const r = runDecoded(c.fn, state, actor, params, fx.ctx);
  if (r.status !== 200) throw new Error(`${c.op}: ${r.status} ${JSON.stringify(r.body)}`);
  if (c.changes && r.state === state) throw new Error(`${c.op}: succeeded without changing anything`);
  const us = timeCall(
    () => runDecoded(c.fn, state, actor, params, fx.ctx),
    quick ? 15 : 41,
    quick ? 500 : 1500,
  );
  return {
    us,
    events: r.events.length,
    recipients: r.events.reduce((n, e) => n + e.users.length, 0),
    body: JSON.stringify(r.body).length,
    describe,
  };
}

export interface MeasureOptions {
  readonly quick?: boolean;
  readonly only?: readonly string[];
  readonly small?: RealmSize;
  readonly large?: RealmSize;
  readonly log?: (line: string) => void;
}

/** Builds both realms, runs every case on each, and returns one row per case. */
export function measureOpsScaling(options: MeasureOptions = {}): OpsScalingRow[] {
  const log = options.log ?? (() => {});
  const cases = options.only ? CASES.filter((c) => options.only!.some((o) => c.op.startsWith(o))) : CASES;
  const results: Array<[Sample[], Sample[]]> = cases.map(() => [[], []]);
  for (const [k, size] of [options.small ?? SMALL, options.large ?? LARGE].entries()) {
    const t0 = performance.now();
    const fx = buildFixture(size);
    log(
      `realm ${size.users}/${size.channels}/${size.messages} built in ${((performance.now() - t0) / 1000).toFixed(1)} s ` +
        `(member ${fx.member}, private #${fx.privateChannel}, public #${fx.publicChannel}, ` +
        `flags topic ${fx.flagsTopic.count} msgs, delete topic ${fx.smallTopic.count} msgs)`,
    );
    cases.forEach((c, i) => {
      const s = runCase(c, fx, options.quick ?? false);
      results[i]![k]!.push(s);
      log(
        `  ${c.op.padEnd(28)} ${s.us.toFixed(1).padStart(10)} µs  ${s.events} events / ${s.recipients} recipients`,
      );
    });
  }
  return cases.map((c, i) => {
    const a = results[i]![0]![0]!;
    const b = results[i]![1]![0]!;
    const ratio = b.us / a.us;
    const outputGrowth = Math.max(1, b.recipients / Math.max(1, a.recipients), b.body / Math.max(1, a.body));
    return {
      op: c.op,
      request: a.describe === b.describe ? a.describe : `small: ${a.describe}; large: ${b.describe}`,
      smallUs: a.us,
      largeUs: b.us,
      ratio,
      eventsSmall: a.events,
      eventsLarge: b.events,
      recipientsSmall: a.recipients,
      recipientsLarge: b.recipients,
      usPerRecipientSmall: a.us / Math.max(1, a.recipients),
      usPerRecipientLarge: b.us / Math.max(1, b.recipients),
      bodySmall: a.body,
      bodyLarge: b.body,
      outputGrowth,
      hotSpot: ratio / outputGrowth > 3,
    };
  });
}

/** The rows as a Markdown table. */
export function opsScalingMarkdown(rows: readonly OpsScalingRow[]): string {
  const f = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  const lines = [
    '| operation | request | small µs | large µs | large/small | events (s/l) | recipients (s/l) | µs/recipient (s/l) | body bytes (s/l) | hot spot |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.op} | ${r.request} | ${f(r.smallUs)} | ${f(r.largeUs)} | ${f(r.ratio)}× | ${r.eventsSmall}/${r.eventsLarge} | ` +
        `${r.recipientsSmall}/${r.recipientsLarge} | ${r.recipientsSmall ? f(r.usPerRecipientSmall) : '–'}/${r.recipientsLarge ? f(r.usPerRecipientLarge) : '–'} | ` +
        `${r.bodySmall}/${r.bodyLarge} | ${r.hotSpot ? '**yes**' : ''} |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const only = process.argv
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const rows = measureOpsScaling({
    quick: process.argv.includes('--quick'),
    ...(only ? { only } : {}),
    log: (line) => console.log(line),
  });
  console.log();
  console.log(opsScalingMarkdown(rows));
}
