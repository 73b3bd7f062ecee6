/**
 * Plausible calls: random-but-likely-valid requests for each operation on a given realm (existing
 * ids, names and topics, sensible values), by an active user chosen to make success likely but not
 * certain. The laws that need successful operations (event sufficiency, model checks) use these.
 */
import fc from 'fast-check';
import type { DefinedOperation } from '../../src/core/operation';
import { CHANNEL_GROUP_SETTING_NAMES, USER_GROUP_SETTING_NAMES } from '../../src/core/model/records';
import { allMessages } from '../../src/core/messages/store';
import { isRealmAdmin } from '../../src/core/permissions/roles';
import type { RealmState } from '../../src/core/state';
import * as ops from '../../src/ops/index';

export interface Call {
  readonly op: DefinedOperation;
  readonly userId: number;
  readonly params: Record<string, unknown>;
}

/** fast-check prints calls as code. */
export class PlausibleCall implements Call {
  constructor(
    readonly op: DefinedOperation,
    readonly userId: number,
    readonly params: Record<string, unknown>,
  ) {}
  [fc.toStringMethod](): string {
    return `${this.op.def.name}(state, { userId: ${this.userId} }, ${JSON.stringify(this.params)})`;
  }
}

const sub = <T>(xs: readonly T[], min: number, max: number): fc.Arbitrary<T[]> =>
  fc.subarray([...xs], { minLength: Math.min(min, xs.length), maxLength: Math.min(max, xs.length) });
const sample = <T>(xs: readonly T[], fallback: T): fc.Arbitrary<T> =>
  xs.length > 0 ? fc.constantFrom(...xs) : fc.constant(fallback);

function plausibleCalls(state: RealmState): Array<fc.Arbitrary<PlausibleCall>> {
  const active = [...state.users.values()].filter((u) => u.is_active);
  const humans = active.filter((u) => !u.is_bot);
  const admins = humans.filter(isRealmAdmin);
  const anyone = sample(
    active.map((u) => u.user_id),
    1,
  );
  const human = sample(
    humans.map((u) => u.user_id),
    1,
  );
  const adminish = fc.oneof(
    {
      arbitrary: sample(
        admins.map((u) => u.user_id),
        1,
      ),
      weight: 3,
    },
    { arbitrary: anyone, weight: 1 },
  );
  const channels = [...state.channels.values()];
  const channelIds = sample(
    channels.map((c) => c.stream_id),
    1,
  );
  const channelNames = channels.map((c) => c.name);
  const groups = [...state.groups.values()].filter((g) => !g.is_system_group);
  const groupIds = sample(
    groups.map((g) => g.id),
    999,
  );
  const allGroupIds = [...state.groups.keys()];
  const userIds = [...state.users.keys()];
  const folders = [...state.channelFolders.keys()];
  const topics = [...new Set([...allMessages(state.messages)].map((m) => m.topic))];
  const messages = [...allMessages(state.messages)];
  const reacted = messages.flatMap((m) => m.reactions.map((r) => [m.id, r] as const));
  const messageIds = messages.map((m) => m.id);
  const scheduled = [...state.scheduledMessages.values()];
  const bots = [...state.users.values()].filter((u) => u.is_bot);
  const fields = [...state.customProfileFields.values()];
  const pairs: Array<[number, number]> = [];
  for (const [streamId, perChannel] of state.subscriptions.entries())
    for (const sub of perChannel.values())
      if (sub.active && state.users.get(sub.user_id)?.is_active) pairs.push([sub.user_id, streamId]);
  const mutes = [...state.mutedUsers].flatMap(([userId, rows]) => rows.map((m) => [userId, m.id] as const));
  const subscribed = fc.constant(pairs.length > 0 ? pairs : [[1, 1] as [number, number]]);

  const settingValue = fc.oneof(
    sample(allGroupIds, 1),
    fc.record({ direct_members: sub(userIds, 0, 3), direct_subgroups: sub(allGroupIds, 0, 2) }),
  );
  const change = settingValue.map((v) => ({ new: v }));
  const call = (
    op: DefinedOperation,
    who: fc.Arbitrary<number>,
    params: fc.Arbitrary<Record<string, unknown>>,
  ) => fc.tuple(who, params).map(([userId, p]) => new PlausibleCall(op, userId, p));
  /** One key of the shape (two, one time in four): many keys at once are mostly refused. */
  const some = <T extends Record<string, fc.Arbitrary<unknown>>>(
    shape: T,
  ): fc.Arbitrary<Record<string, unknown>> => {
    const keys = Object.keys(shape);
    const one = fc.constantFrom(...keys).chain((k) => shape[k]!.map((v) => ({ [k]: v })));
    return fc.oneof(
      { arbitrary: one, weight: 3 },
      { arbitrary: fc.tuple(one, one).map(([a, b]) => ({ ...a, ...b })), weight: 1 },
    );
  };

  const settings = some({
    twenty_four_hour_time: fc.boolean(),
    full_name: fc.constantFrom('Hamlet II', 'Ophelia', 'A'),
    email_address_visibility: fc.integer({ min: 1, max: 5 }),
    timezone: fc.constantFrom('Europe/Paris', 'America/New_York', 'UTC', 'Asia/Calcutta'),
    allow_private_data_export: fc.boolean(),
    enable_drafts_synchronization: fc.boolean(),
    default_language: fc.constantFrom('de', 'en', 'fr'),
    emojiset: fc.constantFrom('google', 'text', 'twitter'),
    color_scheme: fc.integer({ min: 1, max: 3 }),
    web_font_size_px: fc.integer({ min: 12, max: 20 }),
    email: fc.constantFrom('new-address@zulip.com', 'other@example.com'),
  });

  const byOp: Array<fc.Arbitrary<PlausibleCall>> = [
    call(ops.updateSettings, human, settings),
    call(
      ops.updateSettings,
      adminish,
      some({
        twenty_four_hour_time: fc.boolean(),
        color_scheme: fc.integer({ min: 1, max: 3 }),
        emojiset: fc.constantFrom('google', 'text'),
      }).chain((p) =>
        fc
          .tuple(sub(userIds, 1, 3), fc.boolean())
          .map(([user_ids, skip]) => ({ ...p, target_users: { user_ids, skip_if_already_edited: skip } })),
      ),
    ),
    call(
      ops.editChannel,
      adminish,
      fc
        .tuple(
          channelIds,
          some({
            description: fc.constantFrom('New description', '', 'Line\nbreak'),
            new_name: fc.constantFrom('renamed', 'Renamed channel', 'VERONA'),
            is_private: fc.boolean(),
            is_web_public: fc.boolean(),
            history_public_to_subscribers: fc.boolean(),
            is_default_stream: fc.boolean(),
            is_archived: fc.constant(false),
            folder_id: fc.oneof(fc.constant(null), sample(folders, 1)),
            topics_policy: fc.constantFrom('inherit', 'allow_empty_topic', 'disable_empty_topic'),
            message_retention_days: fc.constantFrom('unlimited', 'realm_default', 30),
            ...Object.fromEntries(CHANNEL_GROUP_SETTING_NAMES.map((n) => [n, change])),
          }),
        )
        .map(([stream_id, p]) => ({ stream_id, ...p })),
    ),
    fc.tuple(subscribed, fc.nat()).chain(([pairs, n]) => {
      const [userId] = pairs[n % pairs.length]!;
      const mine = pairs.filter(([u]) => u === userId).map(([, c]) => c);
      return fc
        .array(
          fc
            .record({
              stream_id: fc.oneof(
                { arbitrary: fc.constantFrom(...mine), weight: 5 },
                { arbitrary: channelIds, weight: 1 },
              ),
              property: fc.constantFrom(
                'color',
                'is_muted',
                'in_home_view',
                'pin_to_top',
                'desktop_notifications',
                'push_notifications',
                'wildcard_mentions_notify',
              ),
              flip: fc.boolean(),
            })
            .map(({ stream_id, property, flip }) => ({
              stream_id,
              property,
              value: property === 'color' ? (flip ? '#abcdef' : '#123') : flip,
            })),
          { minLength: 1, maxLength: 3 },
        )
        .map(
          (subscription_data) =>
            new PlausibleCall(ops.updateSubscriptionSettings, userId, { subscription_data }),
        );
    }),
    ...(scheduled.length > 0
      ? [
          fc
            .tuple(
              fc.constantFrom(...scheduled),
              some({
                content: fc.constantFrom('Changed', 'Hi @**all**'),
                topic: fc.constantFrom('new topic', 'lunch'),
                scheduled_delivery_timestamp: fc.constant(1_900_000_000),
              }),
            )
            .map(
              ([m, p]) =>
                new PlausibleCall(ops.editScheduledMessage, m.sender_id, {
                  scheduled_message_id: m.scheduled_message_id,
                  ...p,
                }),
            ),
        ]
      : []),
    call(
      ops.editUserGroup,
      fc.oneof(adminish, human),
      fc
        .tuple(
          groupIds,
          some({
            name: fc.constantFrom('renamed group', 'another name'),
            description: fc.constantFrom('New words', ''),
            deactivated: fc.constant(false),
            ...Object.fromEntries(USER_GROUP_SETTING_NAMES.map((n) => [n, change])),
          }),
        )
        .map(([user_group_id, p]) => ({ user_group_id, ...p })),
    ),
    call(
      ops.createCustomProfileField,
      adminish,
      fc.record({
        name: fc.constantFrom('Shoe size', 'Team', 'Desk'),
        field_type: fc.constantFrom(1, 2, 4, 5, 8),
        hint: fc.constantFrom('', 'A hint'),
      }),
    ),
    call(
      ops.unsubscribe,
      fc.oneof(anyone, adminish),
      fc.record(
        { subscriptions: sub(channelNames, 1, 2), principals: sub(userIds, 0, 2) },
        { requiredKeys: ['subscriptions'] },
      ),
    ),
    call(
      ops.updateMessageFlagsForNarrow,
      anyone,
      fc.record({
        anchor: fc.constantFrom('newest', 'oldest', 'first_unread'),
        num_before: fc.integer({ min: 0, max: 30 }),
        num_after: fc.integer({ min: 0, max: 30 }),
        narrow: fc.oneof(
          fc.constant([]),
          channelIds.map((id) => [{ operator: 'channel', operand: id }]),
          fc.constant([{ operator: 'is', operand: 'starred' }]),
        ),
        op: fc.constantFrom('add', 'remove'),
        flag: fc.constantFrom('read', 'starred'),
      }),
    ),
    call(
      ops.deleteTopic,
      adminish,
      fc.record({
        stream_id: channelIds,
        topic_name: sample(
          topics.map((t) => (t === '' ? 'general chat' : t)),
          'lunch',
        ),
      }),
    ),
    ...(fields.length > 0
      ? [
          call(
            ops.updateProfileData,
            human,
            fc
              .array(
                fc.constantFrom(...fields).chain((f) =>
                  (f.type === 6
                    ? sub(
                        humans.map((u) => u.user_id),
                        1,
                        2,
                      )
                    : f.type === 4
                      ? fc.constant('2001-02-03')
                      : f.type === 5
                        ? fc.constant('https://example.com')
                        : f.type === 3
                          ? fc.constantFrom('0', '1')
                          : fc.constantFrom('x', 'Some **text**', '')
                  ).map((value) => ({ id: f.id, value })),
                ),
                { minLength: 1, maxLength: 2 },
              )
              .map((data) => ({ data })),
          ),
        ]
      : []),
    call(
      ops.addNavigationView,
      anyone,
      fc.oneof(
        fc.record({ fragment: fc.constantFrom('recent', 'inbox', 'feed'), is_pinned: fc.boolean() }),
        fc.record({
          fragment: fc.constantFrom('narrow/channel/1', 'narrow/is/dm'),
          is_pinned: fc.boolean(),
          name: fc.constantFrom('Mine', 'DMs'),
        }),
      ),
    ),
    call(
      ops.createSavedSnippet,
      anyone,
      fc.record({ title: fc.constantFrom('Hi', 'Bye'), content: fc.constantFrom('Hello', '**bold**') }),
    ),
    ...(bots.length > 0
      ? [
          fc
            .constantFrom(...bots)
            .chain((b) =>
              fc
                .oneof(adminish, fc.constant(b.bot_owner_id ?? 1))
                .map((userId) => new PlausibleCall(ops.regenerateBotApiKey, userId, { bot_id: b.user_id })),
            ),
        ]
      : []),
    call(
      ops.reorderChannelFolders,
      adminish,
      fc.shuffledSubarray(folders, { minLength: folders.length }).map((order) => ({ order })),
    ),
    call(ops.getUsers, anyone, fc.constant({})),
    call(ops.deleteBotStorage, anyone, fc.constant({})),
    // Sending: a subscriber into their channel (mentions and wildcards now and then), or a DM.
    subscribed.chain((ps) =>
      fc
        .tuple(
          fc.constantFrom(...ps),
          fc.constantFrom('lunch', 'new topic', '', ...topics.slice(0, 3)),
          fc.constantFrom('Hello', 'Hi @**all**', 'Ping @**topic**', '@*support*', 'See https://zulip.com'),
          fc.boolean(),
        )
        .map(
          ([[userId, streamId], topic, content, read_by_sender]) =>
            new PlausibleCall(ops.sendMessage, userId, {
              type: 'stream',
              to: streamId,
              topic,
              content,
              read_by_sender,
            }),
        ),
    ),
    call(
      ops.sendMessage,
      human,
      fc
        .tuple(sub(userIds, 1, 3), fc.constantFrom('Hey', 'Hey @**all**'))
        .map(([to, content]) => ({ type: 'direct', to, content })),
    ),
    call(
      ops.getMessages,
      anyone,
      fc.record({
        anchor: fc.constantFrom('newest', 'oldest', 'first_unread'),
        num_before: fc.nat(5),
        num_after: fc.nat(5),
      }),
    ),
    call(
      ops.getMessage,
      anyone,
      // Mostly ids that exist (so a run has successes to check), sometimes any id.
      (messageIds.length > 0
        ? fc.oneof({ arbitrary: fc.constantFrom(...messageIds), weight: 4 }, fc.integer({ min: 1, max: 200 }))
        : fc.integer({ min: 1, max: 200 })
      ).map((message_id) => ({ message_id })),
    ),
    // Editing: the sender's content, or a topic (rename, resolve, each propagate mode), or a
    // move to another channel; by the sender or an administrator.
    ...(messageIds.length > 0
      ? [
          fc.constantFrom(...messages).chain((m) =>
            fc
              .tuple(
                fc.oneof(adminish, fc.constant(m.sender_id)),
                fc.oneof(
                  fc.record({ content: fc.constantFrom('Edited', 'Hi @**all**', '@*support* look') }),
                  fc.record({
                    topic: fc.constantFrom('renamed', `✔ ${m.topic}`, 'lunch', ''),
                    propagate_mode: fc.constantFrom('change_one', 'change_later', 'change_all'),
                    send_notification_to_old_thread: fc.boolean(),
                  }),
                  fc.record({
                    stream_id: channelIds,
                    propagate_mode: fc.constantFrom('change_one', 'change_all'),
                  }),
                ),
              )
              .map(([userId, p]) => new PlausibleCall(ops.updateMessage, userId, { message_id: m.id, ...p })),
          ),
        ]
      : []),
    call(
      ops.getMessageHistory,
      anyone,
      (messageIds.length > 0 ? fc.constantFrom(...messageIds) : fc.integer({ min: 1, max: 200 })).map(
        (message_id) => ({ message_id }),
      ),
    ),
    // Deleting: an administrator, or the sender (refused past the time limit), one message.
    ...(messageIds.length > 0
      ? [
          fc
            .constantFrom(...messages)
            .chain((m) =>
              fc
                .oneof(adminish, fc.constant(m.sender_id))
                .map((userId) => new PlausibleCall(ops.deleteMessage, userId, { message_id: m.id })),
            ),
        ]
      : []),
    // Reactions: a few emoji by name, by code and type, or the extra emoji; removing by name or code.
    ...(messageIds.length > 0
      ? [
          fc
            .tuple(
              anyone,
              fc.constantFrom(...messageIds),
              fc.constantFrom<Record<string, string>>(
                { emoji_name: '+1' },
                { emoji_name: 'octopus' },
                { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' },
                { emoji_name: 'zulip' },
                { emoji_name: 'green_tick' },
              ),
            )
            .map(
              ([userId, message_id, p]) => new PlausibleCall(ops.addReaction, userId, { message_id, ...p }),
            ),
          fc
            .tuple(
              anyone,
              fc.constantFrom(...messageIds),
              fc.constantFrom<Record<string, string>>(
                { emoji_name: '+1' },
                { emoji_code: '1f419' },
                { emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' },
              ),
            )
            .map(
              ([userId, message_id, p]) =>
                new PlausibleCall(ops.removeReaction, userId, { message_id, ...p }),
            ),
        ]
      : []),
    // Removing an existing reaction: by its reactor, by name or by code and type.
    ...(reacted.length > 0
      ? [
          fc
            .tuple(fc.constantFrom(...reacted), fc.boolean())
            .map(
              ([[message_id, r], byName]) =>
                new PlausibleCall(
                  ops.removeReaction,
                  r.user_id,
                  byName
                    ? { message_id, emoji_name: r.emoji_name }
                    : { message_id, emoji_code: r.emoji_code, reaction_type: r.reaction_type },
                ),
            ),
        ]
      : []),
    ...(state.realmEmoji.size > 0
      ? [
          fc
            .tuple(anyone, fc.constantFrom(...[...state.realmEmoji.values()].map((e) => e.name)))
            .map(
              ([userId, emoji_name]) => new PlausibleCall(ops.deactivateCustomEmoji, userId, { emoji_name }),
            ),
        ]
      : []),
    call(
      ops.checkMessagesMatchNarrow,
      anyone,
      fc.record({
        msg_ids: fc.array(messageIds.length > 0 ? fc.constantFrom(...messageIds) : fc.nat(200), {
          maxLength: 4,
        }),
        narrow: fc.constantFrom(
          [],
          [{ operator: 'search', operand: 'hey' }],
          [{ operator: 'is', operand: 'dm' }],
        ),
      }),
    ),
    // Joining existing channels and creating new ones, for oneself or for others.
    fc
      .tuple(
        fc.oneof(anyone, adminish),
        fc.array(
          fc.record(
            {
              name: fc.oneof(
                channelNames.length > 0 ? fc.constantFrom(...channelNames) : fc.constant('Verona'),
                fc.constantFrom('new one', 'New two', 'brand new'),
              ),
              description: fc.constantFrom('', 'About *this*'),
            },
            { requiredKeys: ['name'] },
          ),
          { minLength: 1, maxLength: 3 },
        ),
        fc.oneof(
          fc.constant({}),
          fc.constant({}),
          sub(userIds, 1, 2).map((principals) => ({ principals })),
        ),
        fc.oneof(
          fc.constant({}),
          some({
            invite_only: fc.boolean(),
            history_public_to_subscribers: fc.boolean(),
            is_web_public: fc.boolean(),
            is_default_stream: fc.boolean(),
            announce: fc.boolean(),
            authorization_errors_fatal: fc.boolean(),
            can_subscribe_group: fc.constantFrom(...allGroupIds),
            can_add_subscribers_group: fc.constantFrom(...allGroupIds),
          }),
        ),
      )
      .map(
        ([userId, subscriptions, principals, more]) =>
          new PlausibleCall(ops.subscribe, userId, { subscriptions, ...principals, ...more }),
      ),
    // Issue 26, personal state: topic visibility, muted users, alert words, status.
    call(
      ops.updateUserTopic,
      anyone,
      fc.record({
        stream_id: channelIds,
        topic: fc.constantFrom('lunch', 'Lunch', '', ...topics.slice(0, 3)),
        visibility_policy: fc.integer({ min: 0, max: 3 }),
      }),
    ),
    call(
      ops.muteUser,
      human,
      sample(userIds, 1).map((muted_user_id) => ({ muted_user_id })),
    ),
    // Unmuting: only where someone muted someone (runs of calls get there after a muteUser).
    ...(mutes.length > 0
      ? [
          fc
            .constantFrom(...mutes)
            .map(([userId, muted_user_id]) => new PlausibleCall(ops.unmuteUser, userId, { muted_user_id })),
        ]
      : []),
    call(
      ops.addAlertWords,
      anyone,
      fc.record({ alert_words: fc.subarray(['lunch', 'Deploy', ' deploy ', 'ship it', '']) }),
    ),
    call(ops.removeAlertWords, anyone, fc.record({ alert_words: fc.subarray(['LUNCH', 'deploy', 'other']) })),
    call(
      ops.updateStatus,
      anyone,
      some({
        away: fc.boolean(),
        status_text: fc.constantFrom('In a meeting', '', ' Busy '),
        emoji_name: fc.constantFrom('zulip', ''),
      }),
    ),
    call(
      ops.muteTopic,
      anyone,
      fc.record({
        stream: fc.constantFrom(...channelNames.slice(0, 3), 'no such channel'),
        topic: fc.constantFrom('lunch', 'Lunch', ...topics.slice(0, 2)),
        op: fc.constantFrom('add', 'remove'),
      }),
    ),
    call(
      ops.getUserStatus,
      anyone,
      sample(userIds, 1).map((user_id) => ({ user_id })),
    ),
  ];
  return byOp;
}

/** A plausible call to any of the operations. */
export function arbPlausibleCall(state: RealmState): fc.Arbitrary<PlausibleCall> {
  return fc.oneof(...plausibleCalls(state));
}

/** Plausible calls per operation name (operations without a plausible call on this realm are absent). */
export function plausibleCallsByOp(state: RealmState): Map<string, fc.Arbitrary<PlausibleCall>> {
  const out = new Map<string, Array<fc.Arbitrary<PlausibleCall>>>();
  for (const arb of plausibleCalls(state)) {
    // Each generator makes calls to one operation: one sample tells which.
    const name = fc.sample(arb, { numRuns: 1, seed: 0 })[0]!.op.def.name;
    out.set(name, [...(out.get(name) ?? []), arb]);
  }
  return new Map([...out].map(([name, arbs]) => [name, fc.oneof(...arbs)]));
}
