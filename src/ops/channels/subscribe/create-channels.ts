import { castDraft } from 'immer';
import { streamToDict } from '../../../core/channels/stream-dict';
import { errors, zulipError, type ZulipError } from '../../../core/errors';
import { to, type AddressedEvent } from '../../../core/events';
import type { GroupSettingValue } from '../../../core/model/group-setting';
import {
  CHANNEL_GROUP_SETTING_NAMES,
  type Channel,
  type ChannelGroupSettingName,
  type TopicsPolicy,
  type User,
} from '../../../core/model/records';
import { metadataAccessUserIds } from '../../../core/permissions/channels';
import { canonicalSettingValue } from '../../../core/permissions/groups';
import { isRealmAdmin, isRealmOwner } from '../../../core/permissions/roles';
import { CHANNEL_SETTING_RULES, hasRealmPermission } from '../../../core/permissions/setting-rules';
import { validateSettingValue } from '../../../core/permissions/setting-update';
import { edit } from '../../../core/result';
import { putChannel } from '../../../core/state-edit';
import type { RealmState } from '../../../core/state';
import { activeNonGuestUserIds, activeUserIds } from '../../../core/users/realm-users';
import { SETTING_APPLY_ORDER } from '../edit-channel/params';
import { historyCombination } from '../edit-channel/privacy';

/** What the request asks of every channel it creates (Zulip's per-request `StreamDict` fields). */
export interface CreationRequest {
  readonly invite_only: boolean;
  readonly is_web_public: boolean;
  readonly is_default_stream: boolean;
  readonly history_public_to_subscribers: boolean | undefined;
  /** Parsed: null is the realm's default, -1 unlimited. */
  readonly message_retention_days: number | null;
  readonly retentionRequested: boolean;
  readonly topics_policy: TopicsPolicy | undefined;
  readonly folder_id: number | null;
  readonly settings: { readonly [K in ChannelGroupSettingName]?: GroupSettingValue };
}

/** Zulip's `get_default_value_for_history_public_to_subscribers`: public channels always share history. */
export function historyFor(inviteOnly: boolean, requested: boolean | undefined): boolean {
  return inviteOnly ? (requested ?? false) : true;
}

/**
 * Zulip's `access_requested_group_permissions_for_streams`: each requested group setting validated in
 * `Stream.stream_permission_group_settings` order, unrequested ones defaulted (`creator` is an
 * anonymous group of the creator). Values are stored canonical.
 */
export function resolveGroupSettings(
  state: RealmState,
  creator: User,
  req: CreationRequest,
):
  { readonly settings: Record<ChannelGroupSettingName, GroupSettingValue> } | { readonly error: ZulipError } {
  const out = {} as Record<ChannelGroupSettingName, GroupSettingValue>;
  const nobody = state.systemGroups['role:nobody'];
  for (const name of SETTING_APPLY_ORDER) {
    const rule = CHANNEL_SETTING_RULES[name];
    const requested = req.settings[name];
    if (requested === undefined) {
      out[name] =
        rule.default === 'creator'
          ? { direct_members: [creator.user_id], direct_subgroups: [] }
          : state.systemGroups[rule.default];
      continue;
    }
    if (
      name === 'can_create_topic_group' &&
      !historyFor(req.invite_only, req.history_public_to_subscribers) &&
      requested !== state.systemGroups['role:everyone']
    )
      return { error: historyCombination() };
    const invalid = validateSettingValue(state, name, rule, requested);
    if (invalid) return { error: invalid };
    const value = canonicalSettingValue(state, requested);
    if (
      (name === 'can_delete_any_message_group' || name === 'can_delete_own_message_group') &&
      value !== nobody &&
      !isRealmAdmin(creator) &&
      !hasRealmPermission(state, creator, 'can_set_delete_message_policy_group')
    )
      return { error: errors.insufficientPermission() };
    out[name] = value;
  }
  return { settings: out };
}

/** Zulip's `check_channel_creation_permissions`, for one channel to create. */
export function checkCreationPermissions(
  state: RealmState,
  user: User,
  req: CreationRequest,
): ZulipError | undefined {
  const can = (s: Parameters<typeof hasRealmPermission>[2]) => hasRealmPermission(state, user, s);
  // Zulip has no policy for a private web-public channel (its creation notice asserts one exists).
  if (req.invite_only && req.is_web_public) return zulipError('Invalid parameters');
  if (req.invite_only && !can('can_create_private_channel_group')) return errors.insufficientPermission();
  if (!req.invite_only && !can('can_create_public_channel_group')) return errors.insufficientPermission();
  if (req.is_default_stream && !isRealmAdmin(user)) return errors.insufficientPermission();
  if (req.invite_only && req.is_default_stream) return zulipError('A default channel cannot be private.');
  if (req.is_web_public) {
    const enabled = state.server.web_public_streams_enabled && state.realm.enable_spectator_access;
    if (!enabled) return zulipError('Web-public channels are not enabled.');
    if (!can('can_create_web_public_channel_group')) return errors.insufficientPermission();
  }
  if (req.retentionRequested && !isRealmOwner(user)) return errors.mustBeOwner();
  return undefined;
}

/**
 * Creates one channel (Zulip's `create_stream_if_needed`, `created` branch) and its `stream/create`
 * event: public channels to every active non-guest (web-public: every active user), private ones to
 * administrators and the holders of the settings that grant metadata access.
 */
export function createChannel(
  state: RealmState,
  creator: User,
  name: string,
  description: string,
  req: CreationRequest,
  settings: Record<ChannelGroupSettingName, GroupSettingValue>,
  now: number,
): { state: RealmState; channel: Channel; event: AddressedEvent } {
  const streamId = state.channels.maxKey() + 1;
  const channel = Object.freeze({
    stream_id: streamId,
    name,
    description,
    invite_only: req.invite_only,
    is_web_public: req.is_web_public,
    history_public_to_subscribers: historyFor(req.invite_only, req.history_public_to_subscribers),
    message_retention_days: req.message_retention_days,
    is_archived: false,
    folder_id: req.folder_id,
    topics_policy: req.topics_policy ?? 'inherit',
    creator_id: creator.user_id,
    date_created: now,
    ...Object.fromEntries(CHANNEL_GROUP_SETTING_NAMES.map((n) => [n, settings[n]])),
  } as Channel);
  const next = edit(state, (draft) => putChannel(draft, castDraft(channel)));
  const users = !channel.invite_only
    ? channel.is_web_public
      ? activeUserIds(next)
      : activeNonGuestUserIds(next)
    : metadataAccessUserIds(next, channel);
  const event = to(users, {
    type: 'stream',
    op: 'create',
    streams: [streamToDict(next, channel, now)],
    for_unarchiving: false,
  });
  return { state: next, channel, event };
}
