import { createRealm, type RealmOptions } from '../core/snapshot/create';
import type {
  RealmSnapshotInput,
  SnapshotListName,
  SnapshotMessageInput,
  SnapshotRecordInput,
} from '../core/snapshot/format';
import type { RealmState } from '../core/state';

/**
 * A small builder for test realms: records with Zulip-like defaults, ids chosen for you, and the
 * result validated by `createRealm` like any snapshot.
 *
 * @example
 * ```ts
 * const realm = new RealmBuilder()
 *   .user({ full_name: 'Iago', role: 200 }) // user 1
 *   .user({ full_name: 'Hamlet' }) // user 2
 *   .channel({ name: 'Verona' }, [1, 2]) // channel 1, both subscribed
 *   .message({ sender_id: 2, stream_id: 1, topic: 'lunch', content: 'hi' }) // message 101
 *   .build();
 * expect(realm.messages.count).toBe(1);
 * ```
 */
export class RealmBuilder {
  private readonly lists: { [K in SnapshotListName]?: Array<SnapshotRecordInput<K>> } = {
    users: [],
    user_groups: [],
    channels: [],
    subscriptions: [],
    messages: [],
  };
  private realmSettings: RealmInput = {};
  private ids = { user: 0, group: 100, channel: 0, message: 100 };

  realm(settings: RealmInput): this {
    this.realmSettings = { ...this.realmSettings, ...settings };
    return this;
  }

  /** Adds a user; `email` and `api_key` are derived from the id unless given. */
  user(fields: Partial<SnapshotRecordInput<'users'>> = {}): this {
    const id = fields.user_id ?? ++this.ids.user;
    this.ids.user = Math.max(this.ids.user, id);
    return this.add('users', {
      user_id: id,
      email: `user${id}@example.com`,
      full_name: `User ${id}`,
      api_key: `user${id}`.padEnd(32, 'K').slice(0, 32),
      ...fields,
    });
  }

  group(fields: Partial<SnapshotRecordInput<'user_groups'>> & { readonly name: string }): this {
    const id = fields.id ?? ++this.ids.group;
    return this.add('user_groups', { id, ...fields });
  }

  /** Adds a channel and subscribes the given users. */
  channel(
    fields: Partial<SnapshotRecordInput<'channels'>> & { readonly name: string },
    subscribers: readonly number[] = [],
  ): this {
    const id = fields.stream_id ?? ++this.ids.channel;
    this.ids.channel = Math.max(this.ids.channel, id);
    this.add('channels', { stream_id: id, ...fields });
    for (const user_id of subscribers) this.add('subscriptions', { user_id, stream_id: id });
    return this;
  }

  /** Adds a message; `id` (the next after 100) and `timestamp` are chosen unless given. */
  message(fields: MessageFields): this {
    const id = fields.id ?? ++this.ids.message;
    this.ids.message = Math.max(this.ids.message, id);
    return this.add('messages', { id, timestamp: 1_735_689_600 + id, ...fields });
  }

  /** Any record of a list section, e.g. `.add('linkifiers', {...})`. */
  add<K extends SnapshotListName>(section: K, record: SnapshotRecordInput<K>): this {
    const lists: { [P in K]?: Array<SnapshotRecordInput<P>> } = this.lists;
    (lists[section] ??= []).push(record);
    return this;
  }

  toSnapshot(): RealmSnapshotInput {
    return structuredClone({
      format: 'chat-realm.snapshot/1',
      now: 1_795_219_200,
      realm: this.realmSettings,
      ...this.lists,
    });
  }

  build(options?: RealmOptions): RealmState {
    return createRealm(this.toSnapshot(), options);
  }
}

type RealmInput = NonNullable<RealmSnapshotInput['realm']>;

/** A message for `RealmBuilder.message`: `id` and `timestamp` may be left out. */
type MessageFields = SnapshotMessageInput extends infer M
  ? M extends unknown
    ? Omit<M, 'id' | 'timestamp'> & { readonly id?: number; readonly timestamp?: number }
    : never
  : never;

/**
 * Starts a `RealmBuilder`.
 *
 * @example
 * ```ts
 * const state = realmBuilder()
 *   .user({ full_name: 'Iago', role: 200 })
 *   .user({ full_name: 'Hamlet' })
 *   .channel({ name: 'Verona' }, [1, 2])
 *   .build();
 * const r = editChannel(state, { userId: 1 }, { stream_id: 1, description: 'Fair Verona' });
 * expect(r.state.channels.get(1)?.description).toBe('Fair Verona');
 * ```
 */
export const realmBuilder = (): RealmBuilder => new RealmBuilder();
