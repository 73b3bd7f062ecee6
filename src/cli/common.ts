/** What the commands share: output, refusals with an exit code, argument parsing, opening a store. */
import { parseArgs } from 'node:util';
import type { RealmStore } from '../host/store';
import type * as PostgresModule from '../stores/postgres/index';
import type * as SqliteModule from '../stores/sqlite/index';

/** Where a command writes; the tests swap these for buffers. */
export interface CliIO {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
}

export const processIO: CliIO = {
  out: (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
  err: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

/** A refusal the user can fix (bad arguments, a store in the wrong state): a message and exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly exitCode = 2;
}

export const DEFAULT_DB = './chat-realm.db';
export const DEFAULT_REALM = 'default';

type Options = Readonly<Record<string, { readonly type: 'string' | 'boolean'; readonly short?: string }>>;

/** What `parse` gives for a command's options: strings and flags, absent when not given. */
type Values<O extends Options> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string;
};

/** Options every store-using command takes. */
export const STORE_OPTIONS = {
  db: { type: 'string' },
  realm: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** Parses a command's arguments strictly; unknown options and stray arguments are usage errors. */
export function parse<O extends Options>(argv: readonly string[], options: O): Values<O> {
  try {
    return parseArgs({ args: [...argv], options: { ...options }, strict: true, allowPositionals: false })
      .values as Values<O>;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A non-empty environment variable, or undefined. */
export function envValue(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

export interface StoreChoice {
  readonly db?: string | undefined;
  readonly realm?: string | undefined;
}

/**
 * The embedded SQLite store for `--db` (default ./chat-realm.db) and `--realm`. better-sqlite3 is
 * an optional peer dependency, so it is loaded only here, with a clear message when missing.
 */
export async function openSqliteStore(choice: StoreChoice): Promise<{ store: RealmStore; where: string }> {
  // Flags win over the environment: --db, then CHAT_REALM_DB, then the default file.
  const filename = choice.db ?? envValue('CHAT_REALM_DB') ?? DEFAULT_DB;
  let sqlite: typeof SqliteModule;
  try {
    sqlite = await import('../stores/sqlite/index');
  } catch (error) {
    throw new Error('The SQLite store needs the better-sqlite3 package: npm install better-sqlite3', {
      cause: error,
    });
  }
  const realm = choice.realm ?? DEFAULT_REALM;
  const store = sqlite.sqliteStore({ filename, realm });
  return { store, where: `${filename}${realm === DEFAULT_REALM ? '' : ` (realm "${realm}")`}` };
}

/** Whether `--db` names a file with content (a new store is only ever seeded into one without). */
export async function fileHoldsData(choice: StoreChoice): Promise<boolean> {
  const { stat } = await import('node:fs/promises');
  try {
    return (await stat(choice.db ?? DEFAULT_DB)).size > 0;
  } catch {
    return false;
  }
}

/** Removes a store file this command created (and its -wal and -shm files), after a refusal. */
export async function removeNewStore(choice: StoreChoice): Promise<void> {
  const { rm } = await import('node:fs/promises');
  const file = choice.db ?? DEFAULT_DB;
  for (const f of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) await rm(f, { force: true });
}

/** Options of the commands that can use PostgreSQL instead of a SQLite file. */
export const POSTGRES_OPTIONS = {
  'database-url': { type: 'string' },
  schema: { type: 'string' },
} as const satisfies Options;

/**
 * The PostgreSQL URL a command uses: `--database-url`, else `DATABASE_URL` when no other store was
 * asked for (`--db`, or `--memory` for serve); undefined for SQLite (or memory). Refuses flags that
 * exclude each other, and `--schema` without a URL.
 */
export function databaseUrlOf(args: {
  readonly db?: string | undefined;
  readonly memory?: boolean | undefined;
  readonly 'database-url'?: string | undefined;
  readonly schema?: string | undefined;
}): string | undefined {
  if (args['database-url'] !== undefined) {
    if (args.db !== undefined) throw new UsageError('--database-url and --db exclude each other');
    if (args.memory) throw new UsageError('--database-url and --memory exclude each other');
  }
  const url =
    args['database-url'] ?? (args.db === undefined && !args.memory ? envValue('DATABASE_URL') : undefined);
  if (args.schema !== undefined && url === undefined)
    throw new UsageError('--schema needs --database-url (or DATABASE_URL)');
  return url;
}

export interface PostgresChoice {
  readonly url: string;
  readonly realm?: string | undefined;
  readonly schema?: string | undefined;
  /** The store's checkpoint writer thread (default: on); off for one-shot commands. */
  readonly writerThread?: boolean;
  /** `serve --lease`: appends fenced by the realm's write lease, without the write lock. */
  readonly lease?: { readonly token: number | undefined; lost(): void };
}

/**
 * The PostgreSQL store for `--database-url` (or `DATABASE_URL`), `--realm` and `--schema`: several
 * processes may serve one realm this way. `pg` is an optional peer dependency, loaded only here.
 */
export async function openPostgresStore(
  choice: PostgresChoice,
): Promise<{ store: RealmStore; where: string }> {
  const realm = choice.realm ?? DEFAULT_REALM;
  const where =
    `PostgreSQL ${redactUrl(choice.url)}` +
    `${choice.schema === undefined ? '' : `, schema ${choice.schema}`}` +
    `${realm === DEFAULT_REALM ? '' : ` (realm "${realm}")`}`;
  let postgres: typeof PostgresModule;
  try {
    await import('pg');
    postgres = await import('../stores/postgres/index');
  } catch (error) {
    throw new Error('The PostgreSQL store needs the pg package: npm install pg', { cause: error });
  }
  try {
    const store = await postgres.postgresStore({
      connectionString: choice.url,
      realm,
      ...(choice.schema === undefined ? {} : { schema: choice.schema }),
      ...(choice.writerThread === undefined ? {} : { writerThread: choice.writerThread }),
      ...(choice.lease === undefined ? {} : { lease: choice.lease, lockWrites: false }),
    });
    return { store, where };
  } catch (error) {
    if (error instanceof TypeError) throw new UsageError(error.message);
    throw new Error(`Cannot open the realm in ${where}: ${(error as Error).message}`, { cause: error });
  }
}

/** A connection URL without its password, for messages. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    throw new UsageError(
      `--database-url must be a URL like postgres://user@host:5432/db, got ${JSON.stringify(url)}`,
    );
  }
}

/** Whether the store already holds a realm (a checkpoint or any change). */
export async function holdsRealm(store: RealmStore): Promise<boolean> {
  const stored = await store.load();
  return stored.checkpoint !== null || stored.changes.length > 0;
}

/** Reads a snapshot file as JSON (its structure is checked by `createRealm`). */
export async function readSnapshotFile(file: string): Promise<unknown> {
  const { readFile } = await import('node:fs/promises');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`Cannot read the snapshot ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`The snapshot ${file} is not JSON: ${(error as Error).message}`);
  }
}
