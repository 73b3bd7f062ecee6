import { errors, type ZulipError } from '../../../core/errors';
import type { ChannelGroupSettingName, TopicsPolicy } from '../../../core/model/records';
import { codePointLength, param } from '../../../core/params';
import {
  settingChangeRequestSchema,
  type SettingChangeRequest,
} from '../../../core/permissions/setting-update';
import type { RealmState } from '../../../core/state';

/** Zulip's `Stream.stream_permission_group_settings` order: the order the settings are applied in. */
export const SETTING_APPLY_ORDER: readonly ChannelGroupSettingName[] = [
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

export const TOPICS_POLICIES = [
  'inherit',
  'allow_empty_topic',
  'disable_empty_topic',
  'empty_topic_only',
] as const;

export type Params = {
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
export const settingParams = [...SETTING_APPLY_ORDER]
  .sort()
  .map((name) => param(name, settingChangeRequestSchema));

/** Zulip checks the length while parsing (before any lookup), against its fixed limit. */
export function checkDescriptionLength(
  state: RealmState,
  description: string | undefined,
): ZulipError | undefined {
  const maxDescription = state.server.max_stream_description_length;
  if (description !== undefined && codePointLength(description) > maxDescription) {
    return errors.badRequest(`description is too long (limit: ${maxDescription} characters)`);
  }
  return undefined;
}
