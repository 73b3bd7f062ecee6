import {
  REALM_GROUP_SETTING_DEFAULTS,
  REALM_GROUP_SETTING_NAMES,
  REALM_MESSAGE_SETTING_DEFAULTS,
  SERVER_DEFAULTS,
  type RealmMessageSettings,
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
  const settings: Record<string, unknown> = {
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
  };
  for (const [k, v] of Object.entries(REALM_MESSAGE_SETTING_DEFAULTS))
    settings[k] = r[k as keyof RealmMessageSettings] === undefined ? v : r[k as keyof RealmMessageSettings];
  // Unknown keys are refused by the schema (strict).
  for (const name of REALM_GROUP_SETTING_NAMES) {
    settings[name] = loader.setting(
      ['realm', name],
      r[name],
      loader.systemIds[REALM_GROUP_SETTING_DEFAULTS[name]],
    );
  }
  return settings as unknown as RealmSettings;
}
