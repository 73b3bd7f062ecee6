import type { GroupSettingValue } from '../model/group-setting';
import {
  MESSAGE_EDIT_DEFAULTS,
  type MessageEditSettings,
  REALM_GROUP_SETTING_DEFAULTS,
  REALM_GROUP_SETTING_NAMES,
  SERVER_DEFAULTS,
  type RealmGroupSettingName,
  type RealmSettings,
  type ServerSettings,
} from '../model/realm';
import type { Loader } from './loader';
import type { SnapshotInput } from './schema';

export function loadServer(s: SnapshotInput): ServerSettings {
  const fields: Record<string, unknown> = { ...SERVER_DEFAULTS };
  for (const [k, v] of Object.entries(s.server ?? {})) if (v !== undefined) fields[k] = v;
  return fields as unknown as ServerSettings;
}

/** Realm settings with Zulip's defaults for a new organization. */
export function loadRealm(s: SnapshotInput, loader: Loader): RealmSettings {
  const r = s.realm ?? {};
  const groups: Record<string, GroupSettingValue> = {};
  // Unknown keys are refused by the schema (strict).
  for (const name of REALM_GROUP_SETTING_NAMES) {
    groups[name] = loader.setting(
      ['realm', name],
      r[name],
      loader.systemIds[REALM_GROUP_SETTING_DEFAULTS[name]],
    );
  }
  return {
    id: r.id ?? 1,
    string_id: r.string_id ?? 'zulip',
    name: r.name ?? 'Zulip Dev',
    uri: r.uri ?? 'http://localhost:9991',
    deactivated: r.deactivated ?? false,
    enable_spectator_access: r.enable_spectator_access ?? false,
    topics_policy: r.topics_policy ?? 'allow_empty_topic',
    waiting_period_threshold: r.waiting_period_threshold ?? 0,
    name_changes_disabled: r.name_changes_disabled ?? false,
    email_changes_disabled: r.email_changes_disabled ?? false,
    require_unique_names: r.require_unique_names ?? false,
    message_retention_days: r.message_retention_days ?? -1,
    default_language: r.default_language ?? 'en',
    password_auth_enabled: r.password_auth_enabled ?? true,
    ...messageEditSettings(r),
    ...(groups as Record<RealmGroupSettingName, GroupSettingValue>),
  };
}

/** The editing limits given in the snapshot, Zulip's defaults for the others (`null` is "no limit"). */
function messageEditSettings(r: NonNullable<SnapshotInput['realm']>): MessageEditSettings {
  const d = MESSAGE_EDIT_DEFAULTS;
  return {
    allow_message_editing: r.allow_message_editing ?? d.allow_message_editing,
    message_content_edit_limit_seconds:
      r.message_content_edit_limit_seconds === undefined
        ? d.message_content_edit_limit_seconds
        : r.message_content_edit_limit_seconds,
    message_content_delete_limit_seconds:
      r.message_content_delete_limit_seconds === undefined
        ? d.message_content_delete_limit_seconds
        : r.message_content_delete_limit_seconds,
    move_messages_within_stream_limit_seconds:
      r.move_messages_within_stream_limit_seconds === undefined
        ? d.move_messages_within_stream_limit_seconds
        : r.move_messages_within_stream_limit_seconds,
    move_messages_between_streams_limit_seconds:
      r.move_messages_between_streams_limit_seconds === undefined
        ? d.move_messages_between_streams_limit_seconds
        : r.move_messages_between_streams_limit_seconds,
    message_edit_history_visibility_policy:
      r.message_edit_history_visibility_policy ?? d.message_edit_history_visibility_policy,
  };
}
