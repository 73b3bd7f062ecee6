import type * as z from 'zod/mini';
import { cryptoRandom, type PasswordHasher, type RandomSource } from '../context';
import { defaultPasswordHasher } from '../passwords';
import type { RealmState } from '../state';
import type { MessageStore } from '../messages/store-types';
import { IssueList, pathString, SnapshotError } from './issues';
import { checkJsonValues, HOLE } from './json-values';
import { MessageLoader, NO_ROWS, type FlagRows } from './message-loader';
import { Loader, uniqueIds, uniqueKeys } from './loader';
import { loadChannels, loadDefaultChannels, loadFolders, loadSubscriptions } from './load-channels';
import { loadGroups, loadUsers, systemGroupIds } from './load-people';
import { loadPersonal } from './load-personal';
import { loadRealm, loadServer } from './load-realm';
import { checkMessage } from './messages';
import type { RealmSnapshotInput } from './format';
import { snapshotSchema, type SnapshotInput } from './schema';
import { englishMessages } from '../zod-english';

export interface RealmOptions {
  /** Hashes the plain `password` fields of a fixture. */
  readonly passwords?: PasswordHasher;
  readonly random?: RandomSource;
}

/**
 * Validates a `chat-realm.snapshot/1` document and builds the realm. Throws a `SnapshotError`
 * listing every problem with its JSON path; never returns a half-built state.
 *
 * The parameter is typed from the format's schemas (`RealmSnapshotInput`), so a misspelled key or
 * a wrong type in a literal is a compile error; the same checks run again at run time, whatever
 * the value (a JSON.parse result, which is `any`, compiles as is). A value typed `unknown` goes to
 * `parseRealm` instead.
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
export function createRealm(snapshot: RealmSnapshotInput, options: RealmOptions = {}): RealmState {
  return buildRealm(snapshot, options);
}

/**
 * What the stores' checkpoints are read with: a realm this library stored is read back as it was,
 * even where a snapshot given today would be refused (a rule added later must not make an
 * acknowledged store unreadable).
 */
export interface BuildOptions extends RealmOptions {
  readonly stored?: boolean;
}

/** `createRealm` for a realm read back from a store's checkpoint (`BuildOptions.stored`). */
export function createStoredRealm(snapshot: RealmSnapshotInput): RealmState {
  return buildRealm(snapshot, { stored: true });
}

/** `parseRealm` for a realm read back from a store's checkpoint (`BuildOptions.stored`). */
export function parseStoredRealm(value: unknown): ParsedRealm {
  return parseWith(value, { stored: true });
}

/** What `parseRealm` returns: the realm, or the `SnapshotError` listing every problem. */
export type ParsedRealm =
  { readonly ok: true; readonly state: RealmState } | { readonly ok: false; readonly error: SnapshotError };

/**
 * `createRealm` for a value whose type is not known: a snapshot read from a file, a store or a
 * request. Runs the same checks and returns the realm, or the `SnapshotError` as a value.
 *
 * @example
 * ```ts
 * const fromStore: unknown = JSON.parse(JSON.stringify(snapshotRealm(realm)));
 * const parsed = parseRealm(fromStore);
 * expect(parsed.ok && parsed.state.users.size).toBe(realm.users.size);
 * const bad = parseRealm({ format: 'chat-realm.snapshot/1', users: [{ user_id: 0 }] });
 * expect(bad.ok ? [] : bad.error.issues.map((i) => i.path)).toContain('users[0].user_id');
 * ```
 */
export function parseRealm(value: unknown, options: RealmOptions = {}): ParsedRealm {
  return parseWith(value, options);
}

function parseWith(value: unknown, options: BuildOptions): ParsedRealm {
  try {
    return { ok: true, state: buildRealm(value, options) };
  } catch (error) {
    if (error instanceof SnapshotError) return { ok: false, error };
    throw error;
  }
}

function buildRealm(snapshot: unknown, options: BuildOptions): RealmState {
  const assembly = new RealmAssembly(snapshot, options);
  const rawMessages = isRecord(snapshot) ? snapshot['messages'] : undefined;
  if (Array.isArray(rawMessages))
    for (let i = 0; i < rawMessages.length; i++) {
      if (i in rawMessages) assembly.message(rawMessages[i], i);
      else assembly.hole(i);
    }
  return assembly.finish();
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A realm being built: everything but the messages is checked and loaded up front, then messages
 * are given one at a time (`message(raw, index)`), then `finish()` returns the realm or throws the
 * `SnapshotError` listing every problem. `createRealm` and the streamed import
 * (`snapshot-stream.ts`) share it, so both report the same problems at the same paths, in the same
 * order: the messages' shapes, then the rest of the document, then the messages' references.
 */
export class RealmAssembly {
  private readonly shapes = new IssueList();
  private readonly header = new IssueList();
  private readonly refs = new IssueList();
  private readonly build: ((store: MessageStore) => RealmState) | undefined;
  private readonly loader: MessageLoader | undefined;

  /** `snapshot`: the document; its `messages` elements are ignored here (give them to `message`). */
  constructor(snapshot: unknown, options: BuildOptions = {}) {
    const { header } = this;
    checkJsonValues(snapshot, [], header, (p) => p.length === 2 && p[0] === 'messages');
    const notJson = header.items.map((i) => i.path);
    const parsed = snapshotSchema.safeParse(snapshot, englishMessages());
    if (!parsed.success) {
      for (const issue of zodIssues(parsed.error.issues, [])) {
        const at = pathString(issue.path);
        // What is not JSON is reported once, as such, not again as a type mismatch.
        if (
          !notJson.some((p) => p === '(root)' || at === p || at.startsWith(`${p}.`) || at.startsWith(`${p}[`))
        )
          header.add(issue.path, issue.message);
      }
    }
    if (!parsed.success || header.items.length > 0) return;
    const failed = () => this.shapes.items.length > 0 || this.header.items.length > 0;
    const started = startBuild(parsed.data, header, options, this.refs, failed);
    this.build = started.build;
    this.loader = started.loader;
  }

  /** One element of `messages`, at its index in the document. */
  message(raw: unknown, index: number): void {
    const m = checkMessage(raw, index, this.shapes);
    if (m !== undefined && this.loader !== undefined) this.loader.add(m, index);
  }

  /** A message whose `flags` were read apart as rows (see `MessageLoader.addRows`). */
  messageWithRows(raw: Record<string, unknown>, index: number, rows: FlagRows): void {
    const m = checkMessage(raw, index, this.shapes);
    if (m !== undefined && this.loader !== undefined) this.loader.addRows(m, index, rows);
  }

  /**
   * Stream format 2: a message whose rows come later, on user lines (`userRows`). A `flags` field
   * is refused: the rows have one place only.
   */
  messageApart(raw: unknown, index: number): void {
    if (isRecord(raw) && raw['flags'] !== undefined)
      this.shapes.add(
        ['messages', index, 'flags'],
        'stream format 2 gives rows on user lines, not in messages',
      );
    const m = checkMessage(raw, index, this.shapes);
    if (m === undefined) this.loader?.lost();
    else this.loader?.addRows(m, index, NO_ROWS);
  }

  /** Stream format 2: one user's rows, from the `line`-th row line (`MessageLoader.addUserRows`). */
  userRows(line: number, user: number, ids: Int32Array, flags: Uint16Array): void {
    this.loader?.addUserRows(line, user, ids, flags);
  }

  /** A problem of the stream itself (a line out of place, a missing end line). */
  issue(path: readonly PropertyKey[], message: string): void {
    this.shapes.add(path, message);
  }

  /** A hole at `messages[index]` (a sparse array). */
  hole(index: number): void {
    this.problem(index, HOLE);
  }

  /** A message that could not even be read (a streamed line that is not JSON). */
  problem(index: number, message: string): void {
    this.loader?.lost();
    this.shapes.add(['messages', index], message);
  }

  /** The realm, or a `SnapshotError` with every problem found. */
  finish(): RealmState {
    const store = this.loader?.finish();
    const issues = [...this.shapes.items, ...this.header.items, ...this.refs.items];
    if (issues.length > 0 || this.build === undefined || store === undefined) throw new SnapshotError(issues);
    return this.build(store);
  }
}

/**
 * zod's issues, flattened where a union failed: when one branch matched the value's kind (it
 * failed deeper inside, or for a reason other than the type), its issues say more than the union's
 * "Invalid input" (`"role:memebrs" is not a system group name`, `direct_subgroups: expected array`).
 */
function zodIssues(
  issues: readonly z.core.$ZodIssue[],
  base: readonly PropertyKey[],
): Array<{ path: PropertyKey[]; message: string }> {
  const out: Array<{ path: PropertyKey[]; message: string }> = [];
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code === 'invalid_union') {
      const deep = issue.errors.filter((b) => b.some((i) => i.path.length > 0));
      const typed = issue.errors.filter((b) => b.some((i) => i.code !== 'invalid_type'));
      const branch =
        deep.length === 1 ? deep[0] : deep.length === 0 && typed.length === 1 ? typed[0] : undefined;
      if (branch !== undefined) {
        out.push(...zodIssues(branch, path));
        continue;
      }
    }
    out.push({ path, message: issue.message });
  }
  return out;
}

/**
 * Zulip has no channel that is both private and web-public unless it is archived (unarchiving one
 * makes it web-public no more); the events the engine sends for such a channel would be none of
 * Zulip's, so a snapshot holding one is refused.
 */
function privateWebPublic(s: SnapshotInput, issues: IssueList): void {
  (s.channels ?? []).forEach((c, i) => {
    if (c.invite_only === true && c.is_web_public === true && c.is_archived !== true)
      issues.add(
        ['channels', i, 'is_web_public'],
        'a channel cannot be both private (invite_only) and web-public unless it is archived',
      );
  });
}

/** Reads every section but the messages, each checking its references through the shared `Loader`. */
function startBuild(
  s: SnapshotInput,
  issues: IssueList,
  options: BuildOptions,
  refs: IssueList,
  failed: () => boolean,
): { build: (store: MessageStore) => RealmState; loader: MessageLoader } {
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
  if (options.stored !== true) privateWebPublic(s, issues);
  const loader = new Loader(issues, userIds, groupIds, channelIds, folderIds, systemIds);

  const realm = loadRealm(s, loader);
  const people = loadUsers(s, loader, realm.waiting_period_threshold, {
    passwords: options.passwords ?? defaultPasswordHasher,
    random: options.random ?? cryptoRandom,
  });
  const { subscriptions, subscribers } = loadSubscriptions(s, loader);
  const rest = {
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
  };
  const personal = loadPersonal(s, loader, people.users);
  const messages = new MessageLoader(
    userIds,
    channelIds,
    people.users,
    subscribers,
    refs,
    failed,
    s.last_message_id,
  );
  return { build: (store) => ({ ...rest, messages: store, ...personal }), loader: messages };
}
