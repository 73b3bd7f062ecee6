import type { RealmEmoji } from '../model/records';
import type { RealmState } from '../state';

/** One custom emoji as the API gives it (Zulip's `get_realm_emoji_dicts`): the id as a string. */
export interface RealmEmojiDict {
  readonly id: string;
  readonly name: string;
  readonly source_url: string;
  readonly still_url: string | null;
  readonly deactivated: boolean;
  readonly author_id: number | null;
}

export function realmEmojiDict(e: RealmEmoji): RealmEmojiDict {
  return {
    id: String(e.id),
    name: e.name,
    source_url: e.source_url,
    still_url: e.still_url,
    deactivated: e.deactivated,
    author_id: e.author_id,
  };
}

/**
 * Every custom emoji, deactivated ones included, keyed by id (`get_all_custom_emoji_for_realm`):
 * GET /realm/emoji, register's `realm_emoji` and the `realm_emoji` update event.
 */
export function allRealmEmoji(state: RealmState): Record<string, RealmEmojiDict> {
  const out: Record<string, RealmEmojiDict> = {};
  for (const e of state.realmEmoji.values()) out[String(e.id)] = realmEmojiDict(e);
  return out;
}

/** The active custom emoji named `name` (`get_name_keyed_dict_for_active_realm_emoji`). */
export function activeRealmEmojiNamed(state: RealmState, name: string): RealmEmoji | undefined {
  for (const e of state.realmEmoji.values()) if (!e.deactivated && e.name === name) return e;
  return undefined;
}
