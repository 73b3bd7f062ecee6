import type { RealmEmojiDict } from './emoji/realm-emoji';
import type { GroupSettingValue } from './model/group-setting';

/**
 * The Zulip events the 20 operations send, in Zulip's wire form (what GET /events would deliver,
 * minus the queue's `id`). Each variant names its required keys; Zulip adds a few property-specific
 * keys to some (e.g. `rendered_description` on a description update), which the index signatures allow.
 */
type Extra = { readonly [key: string]: unknown };

export type ZulipEvent =
  | ({
      readonly type: 'user_settings';
      readonly op: 'update';
      readonly property: string;
      readonly value: unknown;
    } & Extra)
  | ({
      readonly type: 'update_display_settings' | 'update_global_notifications';
      readonly setting_name: string;
      readonly setting: unknown;
      readonly user: string;
    } & Extra)
  | ({
      readonly type: 'realm_user';
      readonly op: 'update' | 'add';
      readonly person: { readonly user_id: number } & Extra;
    } & Extra)
  | ({
      readonly type: 'realm_bot';
      readonly op: 'update';
      readonly bot: { readonly user_id: number } & Extra;
    } & Extra)
  | { readonly type: 'realm_export_consent'; readonly user_id: number; readonly consented: boolean }
  | ({
      readonly type: 'stream';
      readonly op: 'update';
      readonly stream_id: number;
      readonly name: string;
      readonly property: string;
      readonly value: unknown;
    } & Extra)
  | ({
      readonly type: 'stream';
      readonly op: 'create' | 'delete';
      readonly streams: readonly Extra[];
    } & Extra)
  | ({
      readonly type: 'subscription';
      readonly op: 'update';
      readonly stream_id: number;
      readonly property: string;
      readonly value: unknown;
    } & Extra)
  | ({ readonly type: 'subscription'; readonly op: 'add'; readonly subscriptions: readonly Extra[] } & Extra)
  | {
      readonly type: 'subscription';
      readonly op: 'remove';
      readonly subscriptions: ReadonlyArray<{ readonly name: string; readonly stream_id: number }>;
    }
  | {
      readonly type: 'subscription';
      readonly op: 'peer_add' | 'peer_remove';
      readonly stream_ids: readonly number[];
      readonly user_ids: readonly number[];
    }
  | { readonly type: 'default_streams'; readonly default_streams: readonly Extra[] | readonly number[] }
  | { readonly type: 'scheduled_messages'; readonly op: 'update'; readonly scheduled_message: Extra }
  | {
      readonly type: 'user_group';
      readonly op: 'update';
      readonly group_id: number;
      readonly data: { readonly [key: string]: string | boolean | GroupSettingValue };
    }
  | ({ readonly type: 'user_group'; readonly op: 'add'; readonly group: Extra } & Extra)
  | { readonly type: 'custom_profile_fields'; readonly fields: readonly Extra[] }
  | ({
      readonly type: 'update_message_flags';
      readonly op: 'add' | 'remove';
      readonly operation: 'add' | 'remove';
      readonly flag: string;
      readonly messages: readonly number[];
      readonly all: boolean;
    } & Extra)
  | ({
      readonly type: 'delete_message';
      readonly message_type: 'stream' | 'private';
      readonly message_ids: readonly number[];
    } & Extra)
  | ({ readonly type: 'navigation_view'; readonly op: 'add' | 'update' | 'remove' } & Extra)
  | ({ readonly type: 'saved_snippets'; readonly op: 'add' | 'update' | 'remove' } & Extra)
  | ({ readonly type: 'channel_folder'; readonly op: 'add' | 'update' | 'reorder' } & Extra)
  | ({ readonly type: 'user_topic' } & Extra)
  | { readonly type: 'muted_topics'; readonly muted_topics: ReadonlyArray<readonly [string, string, number]> }
  | {
      readonly type: 'realm_user';
      readonly op: 'remove';
      readonly person: { readonly user_id: number; readonly full_name: string };
    }
  | ({ readonly type: 'message' } & Extra)
  | ({ readonly type: 'update_message' } & Extra)
  | ({ readonly type: 'drafts'; readonly op: 'add' | 'update' | 'remove' } & Extra)
  | ({ readonly type: 'realm'; readonly op: 'update' | 'update_dict' } & Extra)
  | ({ readonly type: 'presence'; readonly user_id: number } & Extra)
  | ({ readonly type: 'typing'; readonly op: 'start' | 'stop' } & Extra)
  | {
      readonly type: 'realm_emoji';
      readonly op: 'update';
      readonly realm_emoji: Readonly<Record<string, RealmEmojiDict>>;
    }
  | {
      readonly type: 'reaction';
      readonly op: 'add' | 'remove';
      readonly user_id: number;
      readonly user: { readonly user_id: number; readonly email: string; readonly full_name: string };
      readonly message_id: number;
      readonly emoji_name: string;
      readonly emoji_code: string;
      readonly reaction_type: 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';
    }
  | {
      readonly type: 'muted_users';
      readonly muted_users: ReadonlyArray<{ readonly id: number; readonly timestamp: number }>;
    }
  | { readonly type: 'alert_words'; readonly alert_words: readonly string[] }
  | ({ readonly type: 'user_status'; readonly user_id: number } & Extra);

/** An event and the ids of the users who receive it (Zulip's `send_event_on_commit(realm, event, user_ids)`). */
export interface AddressedEvent {
  readonly event: ZulipEvent;
  readonly users: readonly number[];
  /**
   * Fields that only the event queue with this id adds to the event (Zulip's `sender_queue_id`:
   * the sending client's queue gets `local_message_id` in its `message` event). Event-queue hosts
   * merge `fields` into the event for that queue; everyone else ignores it.
   */
  readonly forQueue?: { readonly queueId: string; readonly fields: Readonly<Record<string, unknown>> };
  /**
   * A `message` event's Markdown source. The event carries the rendered HTML (`apply_markdown`);
   * event-queue hosts give clients registered without `apply_markdown` this text as `content`.
   */
  readonly markdown?: string;
  /**
   * Set on a message to a public channel: event-queue hosts also give it, with no flags, to the
   * queues registered with `all_public_streams` of users not in `except` (its recipients, sorted).
   */
  readonly allPublicStreams?: { readonly except: readonly number[] };
}

export function to(users: Iterable<number>, event: ZulipEvent): AddressedEvent {
  const list = Array.isArray(users) ? (users as readonly number[]) : [...users];
  // Realm-wide lists arrive ascending already: one pass instead of a Set and a sort.
  if (isStrictlyAscending(list)) return { event, users: list === users ? list.slice() : list };
  return { event, users: [...new Set(list)].sort((a, b) => a - b) };
}

function isStrictlyAscending(list: readonly number[]): boolean {
  for (let i = 1; i < list.length; i++) if (!(list[i - 1]! < list[i]!)) return false;
  return true;
}
