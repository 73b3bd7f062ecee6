/**
 * Register's state types for the everyday features (issue 26): presence, custom emoji, user
 * status, muted users and alert words. Kept apart from register-state.ts, which calls it once.
 */
import { allRealmEmoji } from '../emoji/realm-emoji';
import type { User } from '../model/records';
import { EMPTY_PRESENCE, realmPresences, type PresenceView } from '../presence/presence';
import type { RealmState } from '../state';
import { mutedUsersList } from '../users/muted-users';
import { userStatusDict } from '../users/user-status';

export interface EverydayRegisterOptions {
  /** register's `slim_presence`: the modern presence format, keyed by user id. Default false. */
  readonly slim_presence?: boolean;
  /** register's `presence_history_limit_days`; Zulip's default 14. */
  readonly presence_history_limit_days?: number;
  /** The host's presence rows (volatile host state); absent: none. */
  readonly presence?: PresenceView;
}

/**
 * Zulip's `fetch_initial_state_data` for `presence` (`presences`, `presence_last_update_id`,
 * `server_timestamp`), `realm_emoji`, `user_status`, `muted_users` and `alert_words`.
 */
export function everydaySection(
  state: RealmState,
  me: User,
  want: (type: string) => boolean,
  options: EverydayRegisterOptions,
  now: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (want('presence')) {
    const { presences, lastUpdateId } = realmPresences(state, options.presence ?? EMPTY_PRESENCE, {
      slim: options.slim_presence ?? false,
      lastUpdateId: -1,
      historyLimitDays: options.presence_history_limit_days,
      now,
    });
    out['presences'] = presences;
    out['presence_last_update_id'] = lastUpdateId;
    out['server_timestamp'] = now;
  }
  // Every custom emoji, deactivated ones included (`get_all_custom_emoji_for_realm`).
  if (want('realm_emoji')) out['realm_emoji'] = allRealmEmoji(state);
  if (want('user_status')) out['user_status'] = userStatusDict(state, me);
  if (want('muted_users')) out['muted_users'] = mutedUsersList(state, me.user_id);
  if (want('alert_words')) out['alert_words'] = [...(state.alertWords.get(me.user_id) ?? [])];
  return out;
}
