/**
 * User presence (Zulip's zerver/lib/presence.py and zerver/actions/presence.py), as pure functions
 * over a read-only `PresenceView`. Presence is not realm state: the host keeps the rows (volatile,
 * see docs/ARCHITECTURE.md "Presence"), lends them to operations through the context, and stores
 * the `update_presence` effects the operations return.
 */
import type { User } from '../model/records';
import type { RealmState } from '../state';

/** One user's presence (Zulip's `UserPresence` row); times in UNIX seconds. */
export interface PresenceRow {
  readonly user_id: number;
  /** null until the user first reports `active`. */
  readonly last_active_time: number | null;
  readonly last_connected_time: number;
  /** The realm's presence sequence value when this row last changed. */
  readonly last_update_id: number;
}

/** The host's presence rows, read-only: what operations may see. */
export interface PresenceView {
  get(userId: number): PresenceRow | undefined;
  values(): Iterable<PresenceRow>;
  /** Optional: the rows with `last_update_id` above `id` (an index makes polls O(changes)). */
  valuesSince?(id: number): Iterable<PresenceRow>;
  /** The realm's `PresenceSequence.last_update_id` (0 before any update). */
  readonly lastUpdateId: number;
}

export const EMPTY_PRESENCE: PresenceView = {
  get: () => undefined,
  values: () => [],
  lastUpdateId: 0,
};

/** Zulip's server settings for presence (zproject/default_settings.py, computed_settings.py). */
export const PRESENCE_SETTINGS = {
  pingIntervalSecs: 60,
  offlineThresholdSecs: 140,
  updateMinFreqSecs: 55,
  legacyEventOffsetSecs: 70,
  userLimitForEvents: 100,
  historyLimitDays: 14,
} as const;

export type PresenceStatus = 'active' | 'idle';

export interface PresenceUpdate {
  /** The row to store, or undefined when nothing changes (no sequence step either). */
  readonly row: PresenceRow | undefined;
  /** Whether Zulip would send a `presence` event (a new row, or the user came back online). */
  readonly notify: boolean;
}

/**
 * Zulip's `do_update_user_presence`: a new row on the first ping; afterwards the connected and
 * active times move only when older than `PRESENCE_UPDATE_MIN_FREQ_SECONDS` (several windows
 * pinging must not churn the sequence). Each change takes the next sequence value.
 */
export function nextPresence(
  view: PresenceView,
  userId: number,
  status: PresenceStatus,
  now: number,
): PresenceUpdate {
  const old = view.get(userId);
  const nextId = view.lastUpdateId + 1;
  const active = status === 'active';
  if (old === undefined)
    return {
      row: {
        user_id: userId,
        last_active_time: active ? now : null,
        last_connected_time: now,
        last_update_id: nextId,
      },
      notify: true,
    };
  const sinceActive = old.last_active_time === null ? 86400 : now - old.last_active_time;
  const sinceConnected = now - old.last_connected_time;
  const s = PRESENCE_SETTINGS;
  const becameOnline = active && sinceActive > s.offlineThresholdSecs - s.pingIntervalSecs - 10;
  let lastActive = old.last_active_time;
  let lastConnected = old.last_connected_time;
  let changed = false;
  if (sinceConnected > s.updateMinFreqSecs) {
    lastConnected = now;
    changed = true;
  }
  if (active && sinceActive > s.updateMinFreqSecs) {
    lastActive = now;
    if (now > lastConnected) lastConnected = now;
    changed = true;
  }
  if (!changed) return { row: undefined, notify: becameOnline };
  return {
    row: {
      user_id: userId,
      last_active_time: lastActive,
      last_connected_time: lastConnected,
      last_update_id: nextId,
    },
    notify: becameOnline,
  };
}

/** `user_presence_datetime_with_date_joined_default`: a user never active counts from joining. */
function activeTime(row: PresenceRow, user: User): number {
  return row.last_active_time ?? Math.floor(Date.parse(user.date_joined) / 1000);
}

/** The modern format (`get_modern_user_presence_info`). */
export function modernPresence(
  row: PresenceRow,
  user: User,
): { active_timestamp: number; idle_timestamp: number } {
  return { active_timestamp: activeTime(row, user), idle_timestamp: row.last_connected_time };
}

export interface LegacyClientPresence {
  client: 'website';
  status: PresenceStatus;
  timestamp: number;
  pushable: false;
}

/** The legacy format (`get_legacy_user_presence_info`): one `website` client plus `aggregated`. */
export function legacyPresence(
  row: PresenceRow,
  user: User,
  now: number,
): {
  aggregated: { client: 'website'; status: PresenceStatus; timestamp: number };
  website: LegacyClientPresence;
} {
  const active = activeTime(row, user);
  const idle = now - active > 120;
  const timestamp = idle ? row.last_connected_time : active;
  const status: PresenceStatus = idle ? 'idle' : 'active';
  return {
    aggregated: { client: 'website', status, timestamp },
    website: { client: 'website', status, timestamp, pushable: false },
  };
}

/** `format_legacy_presence_dict`, for events right after an update. */
export function legacyEventPresence(row: PresenceRow, user: User): LegacyClientPresence {
  const active = activeTime(row, user);
  const isActive = active + PRESENCE_SETTINGS.legacyEventOffsetSecs >= row.last_connected_time;
  return {
    client: 'website',
    status: isActive ? 'active' : 'idle',
    timestamp: isActive ? active : row.last_connected_time,
    pushable: false,
  };
}

export interface PresenceQuery {
  /** Modern format keyed by user id (true), or legacy keyed by email. */
  readonly slim: boolean;
  /** Only rows changed after this sequence value; `<= 0` or absent applies the history limit. */
  readonly lastUpdateId?: number | undefined;
  readonly historyLimitDays?: number | undefined;
  readonly now: number;
}

/**
 * `get_presences_for_realm` / `get_presence_dict_by_realm`: the rows of active humans connected
 * within the history limit (or changed since `lastUpdateId`), and the newest sequence value seen.
 * Every user's presence is shared with everyone (Zulip's default
 * `CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE = False`); the engine has no `presence_disabled`
 * realm setting (register reports it false).
 */
export function realmPresences(
  state: RealmState,
  view: PresenceView,
  q: PresenceQuery,
): { presences: Record<string, object>; lastUpdateId: number } {
  const presences: Record<string, object> = {};
  const since = q.lastUpdateId;
  const limit = since === undefined || since <= 0;
  const oldest = q.now - (q.historyLimitDays ?? PRESENCE_SETTINGS.historyLimitDays) * 86400;
  let newest: number | undefined;
  const rows = since !== undefined && since > 0 && view.valuesSince ? view.valuesSince(since) : view.values();
  for (const row of rows) {
    if (since !== undefined && row.last_update_id <= since) continue;
    if (limit && row.last_connected_time < oldest) continue;
    const user = state.users.get(row.user_id);
    if (user === undefined || !user.is_active || user.is_bot) continue;
    if (q.slim) presences[String(user.user_id)] = modernPresence(row, user);
    else presences[user.email] = legacyPresence(row, user, q.now);
    newest = Math.max(newest ?? -1, row.last_update_id);
  }
  return { presences, lastUpdateId: newest ?? since ?? -1 };
}
