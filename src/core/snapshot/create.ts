import { cryptoRandom, defaultPasswordHasher, type PasswordHasher, type RandomSource } from '../context';
import type { RealmState } from '../state';
import { IssueList, SnapshotError } from './issues';
import { Loader, uniqueIds, uniqueKeys } from './loader';
import { loadChannels, loadDefaultChannels, loadFolders, loadSubscriptions } from './load-channels';
import { loadMessages } from './load-messages';
import { loadGroups, loadUsers, systemGroupIds } from './load-people';
import { loadPersonal } from './load-personal';
import { loadRealm, loadServer } from './load-realm';
import { checkMessages, type MessageSnapshotInput } from './messages';
import { snapshotSchema, type SnapshotInput } from './schema';

export interface RealmOptions {
  /** Hashes the plain `password` fields of a fixture. */
  readonly passwords?: PasswordHasher;
  readonly random?: RandomSource;
}

/**
 * Validates a `chat-realm.snapshot/1` document and builds the realm. Throws a `SnapshotError`
 * listing every problem with its JSON path; never returns a half-built state.
 *
 * @example
 * ```ts
 * const state = createRealm({
 *   format: 'chat-realm.snapshot/1',
 *   users: [{ user_id: 1, email: 'ada@example.com', full_name: 'Ada', role: 100, api_key: 'a'.repeat(32) }],
 *   channels: [{ stream_id: 1, name: 'general' }],
 *   subscriptions: [{ user_id: 1, stream_id: 1 }],
 * });
 * expect(state.users.get(1)?.full_name).toBe('Ada');
 * expect(state.channelsByName.get('general')).toBe(1);
 * ```
 */
export function createRealm(snapshot: unknown, options: RealmOptions = {}): RealmState {
  const issues = new IssueList();
  const parsed = snapshotSchema.safeParse(snapshot);
  const rawMessages = (snapshot as { messages?: unknown } | null)?.messages;
  const messages = Array.isArray(rawMessages) ? checkMessages(rawMessages, issues) : [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) issues.add(issue.path, issue.message);
    throw new SnapshotError(issues.items);
  }
  const state = build(parsed.data, messages, issues, options);
  if (issues.items.length > 0) throw new SnapshotError(issues.items);
  return state;
}

/** Reads every section, each checking its references through the shared `Loader`. */
function build(
  s: SnapshotInput,
  messages: Array<{ message: MessageSnapshotInput; index: number }>,
  issues: IssueList,
  options: RealmOptions,
): RealmState {
  const users = s.users ?? [];
  const userIds = uniqueIds(users, (u) => u.user_id, 'users', 'user_id', issues);
  uniqueKeys(users, (u) => u.email.toLowerCase(), 'users', 'email', issues);
  uniqueKeys(users, (u) => u.api_key, 'users', 'api_key', issues);
  const { systemIds, groupIds } = systemGroupIds(s, issues);
  uniqueKeys(s.user_groups ?? [], (g) => g.name, 'user_groups', 'name', issues);
  const folderIds = uniqueIds(s.channel_folders ?? [], (f) => f.id, 'channel_folders', 'id', issues);
  uniqueKeys(s.channel_folders ?? [], (f) => f.name, 'channel_folders', 'name', issues);
  const channelIds = uniqueIds(s.channels ?? [], (c) => c.stream_id, 'channels', 'stream_id', issues);
  uniqueKeys(s.channels ?? [], (c) => c.name.toLowerCase(), 'channels', 'name', issues);
  const loader = new Loader(issues, userIds, groupIds, channelIds, folderIds, systemIds);

  const realm = loadRealm(s, loader);
  const people = loadUsers(s, loader, realm.waiting_period_threshold, {
    passwords: options.passwords ?? defaultPasswordHasher,
    random: options.random ?? cryptoRandom,
  });
  const { subscriptions, subscribers } = loadSubscriptions(s, loader);
  return {
    server: loadServer(s),
    realm,
    now: s.now ?? null,
    ...people,
    ...loadGroups(s, loader),
    systemGroups: systemIds,
    channelFolders: loadFolders(s, loader),
    ...loadChannels(s, loader),
    subscriptions,
    defaultChannelIds: loadDefaultChannels(s, loader),
    messages: loadMessages(messages, userIds, channelIds, people.users, subscribers, issues),
    ...loadPersonal(s, loader, people.users),
  };
}
