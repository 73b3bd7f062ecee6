import { z } from 'zod';
import { errors, zulipError, type ZulipError } from '../../core/errors';
import type { Effect } from '../../core/effects';
import { to, type AddressedEvent } from '../../core/events';
import { checkChannelName } from '../../core/channels/check-channel-name';
import { renderMarkdown } from '../../core/markdown';
import { pythonStrip } from '../../core/text/whitespace';
import { channelMessageIds } from '../../core/messages/query';
import { getMessage } from '../../core/messages/store';
import { isAnonymousGroup, type GroupSettingValue } from '../../core/model/group-setting';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../core/model/realm';
import type { Channel, ChannelGroupSettingName, TopicsPolicy, User } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { codePointLength, param, rawParam } from '../../core/params';
import {
  canAdministerChannel,
  hasContentAccess,
  metadataAccessUserIds,
  subscriberIds,
} from '../../core/permissions/channels';
import { settingApiValue } from '../../core/permissions/groups';
import { isRealmAdmin, isRealmOwner } from '../../core/permissions/roles';
import { CHANNEL_SETTING_RULES, hasRealmPermission } from '../../core/permissions/setting-rules';
import {
  compareSettingChange,
  settingChangeRequestSchema,
  validateSettingValue,
  type SettingChangeRequest,
} from '../../core/permissions/setting-update';
import { edit, editRecord, failure, success } from '../../core/result';
import { putChannel } from '../../core/state-edit';
import type { RealmState } from '../../core/state';
import { activeNonGuestUserIds } from '../../core/users/realm-users';
import {
  channelEventsTopic,
  streamPostPolicy,
  StreamPostPolicy,
  streamToDict,
} from '../../core/channels/stream-dict';

/** Zulip's `Stream.stream_permission_group_settings` order: the order the settings are applied in. */
const SETTING_APPLY_ORDER: readonly ChannelGroupSettingName[] = [
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_create_topic_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_remove_subscribers_group',
  'can_send_message_group',
  'can_subscribe_group',
  'can_resolve_topics_group',
];

/** Settings whose holders see the channel's metadata (and get create/delete events when that changes). */
const GRANTS_METADATA_ACCESS: ReadonlySet<ChannelGroupSettingName> = new Set([
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_subscribe_group',
]);

/** Settings only a caller with content access may change. */
const REQUIRES_CONTENT_ACCESS: ReadonlySet<ChannelGroupSettingName> = new Set([
  'can_add_subscribers_group',
  'can_subscribe_group',
]);

const TOPICS_POLICIES = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'] as const;

type Params = {
  readonly stream_id: number;
  readonly description?: string;
  readonly folder_id?: number | null;
  readonly history_public_to_subscribers?: boolean;
  readonly is_archived?: boolean;
  readonly is_default_stream?: boolean;
  readonly is_private?: boolean;
  readonly is_web_public?: boolean;
  readonly message_retention_days?: string | number;
  readonly new_name?: string;
  readonly topics_policy?: TopicsPolicy;
} & { readonly [K in ChannelGroupSettingName]?: SettingChangeRequest };

// Zulip's view lists its keyword parameters alphabetically: that order decides which parse error wins.
const settingParams = [...SETTING_APPLY_ORDER].sort().map((name) => param(name, settingChangeRequestSchema));

/**
 * PATCH /api/v1/streams/{stream_id} — https://zulip.com/api/update-stream
 *
 * Follows Zulip's `update_stream_backend` check by check, in its order. Differences
 * (docs/differences/channels-edit.md):
 * - Zulip commits each step on its own, so a late error leaves earlier changes applied; here every
 *   step runs on a working copy and the request is all or nothing (same error, state unchanged).
 * - The realm model has no `moderation_request_channel`, no `send_channel_events_messages` and no
 *   plan type: the moderation-channel check never fires, notices are always posted, web-public and
 *   retention are never refused for a limited plan.
 * - Notices are `post_notification_message` effects, not messages; audit-log rows are not kept.
 * - `rendered_description` comes from the engine's small Markdown renderer (src/core/markdown.ts).
 *
 * @example
 * ```ts
 * const r = editChannel(realm, { userId: 2 }, { stream_id: 1, description: 'New' }, { now });
 * expect(r.status).toBe(200);
 * expect(r.state.channels.get(1)?.description).toBe('New');
 * // A member may not: errors are values, the state is the same object.
 * const denied = editChannel(realm, { userId: 4 }, { stream_id: 1, description: 'Mine' }, { now });
 * expect(denied.status).toBe(400);
 * expect(denied.state).toBe(realm);
 * ```
 */
export const editChannel = defineOperation<Params>({
  name: 'editChannel',
  method: 'PATCH',
  path: '/streams/{stream_id}',
  operationId: 'update-stream',
  pathParams: ['stream_id'],
  params: [
    param('stream_id', z.int(), { required: true }),
    ...settingParams,
    rawParam('description', z.string()),
    param('folder_id', z.int().nullable()),
    param('history_public_to_subscribers', z.boolean()),
    param('is_archived', z.boolean()),
    param('is_default_stream', z.boolean()),
    param('is_private', z.boolean()),
    param('is_web_public', z.boolean()),
    param('message_retention_days', z.union([z.string(), z.int()])),
    rawParam('new_name', z.string()),
    rawParam('topics_policy', z.enum(TOPICS_POLICIES)),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    // Zulip checks the length while parsing (before any lookup), against its fixed limit.
    const maxDescription = state.server.max_stream_description_length;
    if (params.description !== undefined && codePointLength(params.description) > maxDescription) {
      return failure(
        state,
        errors.badRequest(`description is too long (limit: ${maxDescription} characters)`),
      );
    }
    const channel = state.channels.get(params.stream_id);
    if (channel === undefined) return failure(state, errors.invalidChannelId());
    if (!canAdministerChannel(state, user, channel)) {
      // Without content access the channel's existence stays hidden.
      return failure(
        state,
        hasContentAccess(state, user, channel)
          ? errors.badRequest('You do not have permission to administer this channel.')
          : errors.invalidChannelId(),
      );
    }
    const run = new Run(state, user, params.stream_id, ctx.now);
    const refused = applyAll(run, params);
    if (refused) return failure(state, refused);
    return success(run.state, { ignored, events: run.events, effects: run.effects });
  },
});

/** The working copy a request is applied to, with the events and notices collected so far. */
class Run {
  readonly events: AddressedEvent[] = [];
  readonly effects: Effect[] = [];
  constructor(
    public state: RealmState,
    readonly user: User,
    readonly streamId: number,
    readonly now: number,
  ) {}

  get channel(): Channel {
    return this.state.channels.get(this.streamId)!;
  }

  update(recipe: (c: { -readonly [K in keyof Channel]: Channel[K] }) => void): void {
    const next = editRecord(this.channel, recipe);
    this.state = edit(this.state, (draft) => putChannel(draft, next));
  }

  /** Zulip's `{op:'update', type:'stream'}` event to everyone who can see the channel's metadata. */
  streamUpdate(
    property: string,
    value: unknown,
    extra: Record<string, unknown> = {},
    users?: Iterable<number>,
  ): void {
    const c = this.channel;
    this.events.push(
      to(users ?? metadataAccessUserIds(this.state, c), {
        type: 'stream',
        op: 'update',
        property,
        value,
        ...extra,
        stream_id: c.stream_id,
        name: c.name,
      }),
    );
  }

  streamCreate(users: Iterable<number>, forUnarchiving: boolean): void {
    this.events.push(
      to(users, {
        type: 'stream',
        op: 'create',
        streams: [streamToDict(this.state, this.channel, this.now)],
        for_unarchiving: forUnarchiving,
      }),
    );
  }

  peerAdd(users: Iterable<number>): void {
    this.events.push(
      to(users, {
        type: 'subscription',
        op: 'peer_add',
        stream_ids: [this.streamId],
        user_ids: subscriberIds(this.state, this.streamId),
      }),
    );
  }

  /** A Notification Bot message in the channel's events topic (Zulip's `maybe_send_channel_events_notice`). */
  notice(content: string): void {
    const c = this.channel;
    this.effects.push({
      type: 'post_notification_message',
      stream_id: c.stream_id,
      topic: channelEventsTopic(c),
      content,
    });
  }

  get mention(): string {
    return userMention(this.user);
  }
}

/** Zulip's silent mention syntax. */
const userMention = (u: { full_name: string; user_id: number }) => `@_**${u.full_name}|${u.user_id}**`;

const insufficient = () => errors.insufficientPermission();
const contentAccessRequired = () => errors.badRequest('Channel content access is required.');
const historyCombination = () =>
  errors.unsupportedCombination(['history_public_to_subscribers', 'can_create_topic_group']);

/** Every step of `update_stream_backend`, in its order; the first refusal is returned. */
function applyAll(run: Run, params: Params): ZulipError | undefined {
  const { state, user } = run;
  const start = run.channel;

  // 1–3: the privacy settings the request would leave.
  const proposedPrivate = params.is_private ?? start.invite_only;
  const proposedWebPublic = params.is_web_public ?? start.is_web_public;
  const proposedDefault = params.is_default_stream ?? state.defaultChannelIds.has(start.stream_id);
  const proposedHistory =
    params.history_public_to_subscribers ??
    (params.is_private !== undefined ? !params.is_private : start.history_public_to_subscribers);
  if (
    (proposedWebPublic && !proposedHistory) ||
    (proposedWebPublic && proposedPrivate) ||
    (!proposedPrivate && !proposedHistory)
  ) {
    return errors.badRequest('Invalid parameters');
  }
  if (proposedPrivate && proposedDefault) return errors.badRequest('A default channel cannot be private.');
  // 4 (moderation request channel must stay private): the realm model has no such channel.

  // 5–7: who may change the privacy.
  if (params.is_private !== undefined) {
    if (!hasContentAccess(state, user, start)) return contentAccessRequired();
    const needed = params.is_private ? 'can_create_private_channel_group' : 'can_create_public_channel_group';
    if (!hasRealmPermission(state, user, needed)) return insufficient();
  }
  if (params.is_web_public === true) {
    if (!state.server.web_public_streams_enabled || !state.realm.enable_spectator_access) {
      return errors.badRequest('Web-public channels are not enabled.');
    }
    if (!hasRealmPermission(state, user, 'can_create_web_public_channel_group')) return insufficient();
  }

  // 8: the topics policy is applied right away.
  if (params.topics_policy !== undefined) {
    const refused = changeTopicsPolicy(run, params.topics_policy);
    if (refused) return refused;
  }

  // 9: protected history needs can_create_topic_group = everyone, checked on every such request.
  if (
    !proposedHistory &&
    params.can_create_topic_group === undefined &&
    run.channel.can_create_topic_group !== state.systemGroups['role:everyone']
  ) {
    return historyCombination();
  }

  // 10: privacy, even when nothing changes (Zulip still sends the event and the notice).
  if (
    params.is_private !== undefined ||
    params.is_web_public !== undefined ||
    params.history_public_to_subscribers !== undefined
  ) {
    changePermission(run, proposedPrivate, proposedHistory, proposedWebPublic);
  }

  // 11: default channels.
  if (params.is_default_stream !== undefined) {
    if (!isRealmAdmin(user))
      return errors.badRequest('You do not have permission to change default channels.');
    changeDefault(run, params.is_default_stream);
  }

  // 12: retention.
  if (params.message_retention_days !== undefined) {
    if (!isRealmOwner(user)) return errors.mustBeOwner();
    const parsed = parseRetention(params.message_retention_days);
    if (parsed.kind === 'error') return parsed.error;
    changeRetention(run, parsed.value);
  }

  // 13: unarchiving (is_archived=true is silently ignored: archiving is DELETE /streams/{id}).
  if (params.is_archived === false) {
    const refused = unarchive(run);
    if (refused) return refused;
  }

  // 14: the channel's delete-message settings need the realm-level permission, even as a no-op.
  if (
    (params.can_delete_any_message_group !== undefined ||
      params.can_delete_own_message_group !== undefined) &&
    !isRealmAdmin(user) &&
    !hasRealmPermission(run.state, user, 'can_set_delete_message_policy_group')
  ) {
    return insufficient();
  }

  // 15: the description is always written (no no-op check).
  if (params.description !== undefined) changeDescription(run, params.description.replaceAll('\n', ' '));

  // 16: the name.
  if (params.new_name !== undefined) {
    const refused = rename(run, pythonStrip(params.new_name));
    if (refused) return refused;
  }

  // 17: the folder, always written.
  if (params.folder_id !== undefined) {
    const folderId = params.folder_id;
    if (folderId !== null && run.state.channelFolders.get(folderId) === undefined) {
      return errors.badRequest('Invalid channel folder ID');
    }
    run.update((c) => {
      c.folder_id = folderId;
    });
    run.streamUpdate('folder_id', folderId);
  }

  // 18: group settings.
  for (const name of SETTING_APPLY_ORDER) {
    const request = params[name];
    if (request === undefined) continue;
    const refused = changeSetting(run, name, request, proposedHistory);
    if (refused) return refused;
  }
  return undefined;
}

const TOPICS_POLICY_NAMES: Readonly<Record<TopicsPolicy, string>> = {
  inherit: 'Automatic',
  allow_empty_topic: `*${EMPTY_TOPIC_DISPLAY_NAME}* topic allowed`,
  disable_empty_topic: `No *${EMPTY_TOPIC_DISPLAY_NAME}* topic`,
  empty_topic_only: `Only *${EMPTY_TOPIC_DISPLAY_NAME}* topic allowed`,
};

function changeTopicsPolicy(run: Run, policy: TopicsPolicy): ZulipError | undefined {
  const { user } = run;
  if (
    policy !== 'inherit' &&
    !isRealmAdmin(user) &&
    !hasRealmPermission(run.state, user, 'can_set_topics_policy_group')
  ) {
    return insufficient();
  }
  if (policy === 'empty_topic_only' && hasNamedTopic(run.state, run.streamId)) {
    return zulipError(
      `To enable this configuration, all messages in this channel must be in the ${EMPTY_TOPIC_DISPLAY_NAME} topic. Consider renaming or deleting other topics.`,
      'BAD_REQUEST',
      400,
      { empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME },
    );
  }
  const old = run.channel.topics_policy;
  if (old === policy) return undefined;
  run.update((c) => {
    c.topics_policy = policy;
  });
  run.streamUpdate('topics_policy', policy);
  run.notice(
    `${run.mention} changed the "Allow posting to the *${EMPTY_TOPIC_DISPLAY_NAME}* topic?" setting from **${TOPICS_POLICY_NAMES[old]}** to **${TOPICS_POLICY_NAMES[policy]}**.`,
  );
  return undefined;
}

function hasNamedTopic(state: RealmState, streamId: number): boolean {
  return channelMessageIds(state.messages, streamId).some(
    (id) => (getMessage(state.messages, id)?.topic ?? '') !== '',
  );
}

function policyName(invite_only: boolean, history: boolean, webPublic: boolean): string {
  if (webPublic) return 'Web-public';
  if (!invite_only) return 'Public';
  return history ? 'Private, shared history' : 'Private, protected history';
}

/** Zulip's `do_change_stream_permission`. */
function changePermission(run: Run, inviteOnly: boolean, history: boolean, webPublic: boolean): void {
  const before = run.channel;
  run.update((c) => {
    c.invite_only = inviteOnly;
    c.history_public_to_subscribers = history;
    c.is_web_public = webPublic;
  });
  const after = run.channel;
  let created = new Set<number>();
  if (before.invite_only && !after.invite_only) {
    // Zulip: active non-guests minus those who already had metadata access to the private channel
    // (subscribers, admins and holders of the metadata-granting settings).
    const { state } = run;
    const couldSee = new Set(metadataAccessUserIds(state, before));
    created = new Set(activeNonGuestUserIds(state).filter((id) => !couldSee.has(id)));
    run.streamCreate(created, false);
    run.peerAdd(created);
  }
  const updateTo = metadataAccessUserIds(run.state, after).filter((id) => !created.has(id));
  run.streamUpdate(
    'invite_only',
    after.invite_only,
    {
      history_public_to_subscribers: after.history_public_to_subscribers,
      is_web_public: after.is_web_public,
    },
    updateTo,
  );
  const oldName = policyName(before.invite_only, before.history_public_to_subscribers, before.is_web_public);
  const newName = policyName(after.invite_only, after.history_public_to_subscribers, after.is_web_public);
  run.notice(
    `${run.mention} changed the [access permissions](/help/channel-permissions) for this channel from **${oldName}** to **${newName}**.`,
  );
}

function changeDefault(run: Run, makeDefault: boolean): void {
  const id = run.streamId;
  const was = run.state.defaultChannelIds.has(id);
  if (makeDefault && was) return;
  run.state = edit(run.state, (draft) => {
    draft.defaultChannelIds = makeDefault
      ? draft.defaultChannelIds.set(id, true)
      : draft.defaultChannelIds.delete(id);
  });
  const { state } = run;
  run.events.push(
    to(activeNonGuestUserIds(state), {
      type: 'default_streams',
      default_streams: [...state.defaultChannelIds.keys()],
    }),
  );
}

type Parsed<T> =
  { readonly kind: 'ok'; readonly value: T } | { readonly kind: 'error'; readonly error: ZulipError };

/** `unlimited` → -1, `realm_default` → null, a positive integer; anything else is a bad value. */
function parseRetention(value: string | number): Parsed<number | null> {
  if (value === 'unlimited') return { kind: 'ok', value: -1 };
  if (value === 'realm_default') return { kind: 'ok', value: null };
  if (typeof value === 'string' || value <= 0)
    return { kind: 'error', error: errors.invalidVar('message_retention_days', value) };
  return { kind: 'ok', value };
}

function changeRetention(run: Run, value: number | null): void {
  const old = run.channel.message_retention_days;
  run.update((c) => {
    c.message_retention_days = value;
  });
  run.streamUpdate('message_retention_days', value);
  // Switching from or to the realm default shows the realm's value.
  const realmDays = run.state.realm.message_retention_days;
  const oldDays = old ?? realmDays;
  const newDays = value ?? realmDays;
  const days = (n: number) => `${n} days`;
  const deleted = `Messages in this channel will now be automatically deleted ${newDays} days after they are sent.`;
  const [oldText, newText, summary] =
    oldDays === -1
      ? ['Forever', days(newDays), deleted]
      : newDays === -1
        ? [days(oldDays), 'Forever', 'Messages in this channel will now be retained forever.']
        : [days(oldDays), days(newDays), deleted];
  run.notice(
    `${run.mention} has changed the [message retention period](/help/message-retention-policy) for this channel:\n` +
      `* **Old retention period**: ${oldText}\n* **New retention period**: ${newText}\n\n${summary}`,
  );
}

function unarchive(run: Run): ZulipError | undefined {
  const c = run.channel;
  if (!c.is_archived) return errors.badRequest('Channel is not currently deactivated');
  // Zulip counts subscriptions of deactivated users here too.
  const anySubscriber = [...(run.state.subscriptions.get(c.stream_id)?.values() ?? [])].some((s) => s.active);
  if (c.invite_only && !anySubscriber) return errors.badRequest('Channel is private and have no subscribers');
  run.update((d) => {
    d.is_archived = false;
    // Old archiving could leave a private channel web-public; Zulip repairs that here.
    if (d.invite_only && d.is_web_public) d.is_web_public = false;
  });
  const users = metadataAccessUserIds(run.state, run.channel);
  run.streamUpdate('is_archived', false, {}, users);
  run.streamCreate(users, true);
  run.notice(`Channel #**${run.channel.name}** has been unarchived.`);
  return undefined;
}

function changeDescription(run: Run, description: string): void {
  const old = run.channel.description;
  run.update((c) => {
    c.description = description;
  });
  run.streamUpdate('description', description, { rendered_description: renderMarkdown(description) });
  const shown = (d: string) => (d === '' ? '*No description.*' : d);
  run.notice(
    `${run.mention} changed the description for this channel.\n\n` +
      `* **Old description:**\n\`\`\`\` quote\n${shown(old)}\n\`\`\`\`\n` +
      `* **New description:**\n\`\`\`\` quote\n${shown(description)}\n\`\`\`\``,
  );
}

function rename(run: Run, newName: string): ZulipError | undefined {
  const c = run.channel;
  if (newName === c.name) return errors.badRequest('Channel already has that name.');
  if (newName.toLowerCase() !== c.name.toLowerCase()) {
    // A case-only rename skips the name checks.
    const invalid = checkChannelName(newName, run.state.server.max_stream_name_length);
    if (invalid) return invalid;
    if (run.state.channelsByName.get(newName.toLowerCase()) !== undefined) {
      return zulipError(`Channel '${newName}' already exists`, 'CHANNEL_ALREADY_EXISTS', 409, {
        channel_name: newName,
      });
    }
  }
  const oldName = c.name;
  run.update((d) => {
    d.name = newName;
  });
  // This event carries the old name in `name`.
  run.events.push(
    to(metadataAccessUserIds(run.state, run.channel), {
      type: 'stream',
      op: 'update',
      property: 'name',
      value: newName,
      stream_id: c.stream_id,
      name: oldName,
    }),
  );
  run.notice(`${run.mention} renamed channel **${oldName}** to **${newName}**.`);
  return undefined;
}

function changeSetting(
  run: Run,
  name: ChannelGroupSettingName,
  request: SettingChangeRequest,
  proposedHistory: boolean,
): ZulipError | undefined {
  const { state, user } = run;
  const rule = CHANNEL_SETTING_RULES[name];
  const before = run.channel;
  const compared = compareSettingChange(state, before[name], request);
  if (compared.kind === 'error') return compared.error;
  if (compared.kind === 'unchanged') return undefined;
  const next = compared.value;
  if (REQUIRES_CONTENT_ACCESS.has(name) && !hasContentAccess(state, user, before))
    return contentAccessRequired();
  if (name === 'can_create_topic_group' && !proposedHistory && next !== state.systemGroups['role:everyone']) {
    return historyCombination();
  }
  const invalid = validateSettingValue(state, name, rule, request.new);
  if (invalid) return invalid;

  const grantsMetadata = GRANTS_METADATA_ACCESS.has(name);
  const hadAccess = grantsMetadata ? new Set(metadataAccessUserIds(state, before)) : new Set<number>();
  run.update((c) => {
    c[name] = next;
  });
  const after = run.channel;
  const newApi = settingApiValue(run.state, after[name]);
  const hasAccess = metadataAccessUserIds(run.state, after);
  if (grantsMetadata) {
    const gaining = hasAccess.filter((id) => !hadAccess.has(id));
    const now = new Set(hasAccess);
    const losing = [...hadAccess].filter((id) => !now.has(id));
    run.streamUpdate(
      name,
      newApi,
      {},
      hasAccess.filter((id) => hadAccess.has(id)),
    );
    if (gaining.length > 0) {
      run.streamCreate(gaining, false);
      run.peerAdd(gaining);
    }
    if (losing.length > 0) {
      run.events.push(
        to(losing, {
          type: 'stream',
          op: 'delete',
          streams: [{ stream_id: after.stream_id }],
          stream_ids: [after.stream_id],
          for_archiving: false,
        }),
      );
    }
  } else {
    run.streamUpdate(name, newApi, {}, hasAccess);
  }

  if (name === 'can_send_message_group') {
    const oldPolicy = streamPostPolicy(state, before.can_send_message_group);
    const newPolicy = streamPostPolicy(run.state, after.can_send_message_group);
    if (oldPolicy !== newPolicy) {
      run.streamUpdate('stream_post_policy', newPolicy, {}, hasAccess);
      run.streamUpdate('is_announcement_only', newPolicy === StreamPostPolicy.admins, {}, hasAccess);
    }
    run.notice(
      `${run.mention} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n` +
        `* **Old**: ${describeHolders(state, settingApiValue(state, before[name]))}\n* **New**: ${describeHolders(run.state, newApi)}\n`,
    );
  }
  return undefined;
}

/** Zulip's `get_users_string_with_permission`: group mentions by id, then user mentions by id. */
function describeHolders(state: RealmState, value: GroupSettingValue): string {
  const groupMention = (id: number) => `@_*${state.groups.get(id)?.name ?? id}*`;
  if (!isAnonymousGroup(value)) return groupMention(value);
  const groups = value.direct_subgroups
    .filter((id) => state.groups.has(id))
    .sort((a, b) => a - b)
    .map(groupMention);
  const users = [...value.direct_members]
    .sort((a, b) => a - b)
    .flatMap((id) => {
      const u = state.users.get(id);
      return u ? [userMention(u)] : [];
    });
  return [...groups, ...users].join(', ');
}
