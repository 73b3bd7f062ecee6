import { createRealm, type RealmOptions } from '../core/snapshot/create';
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
  private readonly lists: Record<string, unknown[]> = {
    users: [],
    user_groups: [],
    channels: [],
    subscriptions: [],
    messages: [],
  };
  private realmSettings: Record<string, unknown> = {};
  private ids = { user: 0, group: 100, channel: 0, message: 100 };

  realm(settings: Record<string, unknown>): this {
    this.realmSettings = { ...this.realmSettings, ...settings };
    return this;
  }

  /** Adds a user; `email` and `api_key` are derived from the id unless given. */
  user(fields: Record<string, unknown> = {}): this {
    const id = (fields['user_id'] as number | undefined) ?? ++this.ids.user;
    this.ids.user = Math.max(this.ids.user, id);
    this.lists['users']!.push({
      user_id: id,
      email: `user${id}@example.com`,
      full_name: `User ${id}`,
      api_key: `user${id}`.padEnd(32, 'K').slice(0, 32),
      ...fields,
    });
    return this;
  }

  group(fields: Record<string, unknown> & { name: string }): this {
    const id = (fields['id'] as number | undefined) ?? ++this.ids.group;
    this.lists['user_groups']!.push({ id, ...fields });
    return this;
  }

  /** Adds a channel and subscribes the given users. */
  channel(fields: Record<string, unknown> & { name: string }, subscribers: readonly number[] = []): this {
    const id = (fields['stream_id'] as number | undefined) ?? ++this.ids.channel;
    this.ids.channel = Math.max(this.ids.channel, id);
    this.lists['channels']!.push({ stream_id: id, ...fields });
    for (const user_id of subscribers) this.lists['subscriptions']!.push({ user_id, stream_id: id });
    return this;
  }

  message(fields: Record<string, unknown> & { sender_id: number; content: string }): this {
    const id = (fields['id'] as number | undefined) ?? ++this.ids.message;
    this.ids.message = Math.max(this.ids.message, id);
    this.lists['messages']!.push({ id, timestamp: 1_735_689_600 + id, ...fields });
    return this;
  }

  /** Any other snapshot section, e.g. `.add('linkifiers', {...})`. */
  add(section: string, record: Record<string, unknown>): this {
    (this.lists[section] ??= []).push(record);
    return this;
  }

  toSnapshot(): Record<string, unknown> {
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
