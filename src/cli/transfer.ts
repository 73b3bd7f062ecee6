/** `chat-realm export` and `chat-realm import`: between a store and a snapshot file. */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { SnapshotError } from '../core/snapshot/issues';
import { createRealmFromChunks, snapshotChunks } from '../core/snapshot/snapshot-stream';
import type { RealmState } from '../core/state';
import { openRealm } from '../host/realm-handle';
import type { RealmStore } from '../host/store';
import {
  databaseUrlOf,
  DEFAULT_DB,
  fileHoldsData,
  holdsRealm,
  openPostgresStore,
  openSqliteStore,
  parse,
  POSTGRES_OPTIONS,
  removeNewStore,
  STORE_OPTIONS,
  UsageError,
  type CliIO,
} from './common';
import { readJsonSnapshot } from './json-snapshot';

export const EXPORT_HELP = `Usage: chat-realm export [--db FILE | --database-url URL] [--realm NAME] [--out FILE] [--format json|ndjson|ndjson1]

Writes the realm in a store, at its latest version, as a snapshot (chat-realm.snapshot/1), streamed:
no single string holds it, so realms of any size can be written. Exporting or importing a realm
of a million messages takes under 1 GB of heap (Node's default limit suffices).

Options:
  --db FILE          SQLite file (default ${DEFAULT_DB})
  --database-url URL PostgreSQL instead (default: $DATABASE_URL when set and --db is not given)
  --schema NAME      PostgreSQL schema of the tables (default public)
  --realm NAME       Which realm in the file or database (default "default")
  --out FILE         Where to write (default: standard output)
  --format FORMAT    json (one document), ndjson (stream format 2, chat-realm.stream/2: the
                     document, one line per message, one line of rows per user; what import reads
                     without holding the file in memory) or ndjson1 (stream format 1: one line per
                     message with its flags, for older readers). Default: ndjson when the file
                     name ends in .ndjson, else json
  -h, --help         Show this help`;

export const IMPORT_HELP = `Usage: chat-realm import --snapshot FILE [--db FILE | --database-url URL] [--realm NAME]

Creates a store holding the realm of a snapshot (checked first; every problem is listed).
Refused (exit code 2) when the store already holds a realm.

Options:
  --snapshot FILE    The snapshot, written by chat-realm export or simulate: JSON, or NDJSON
                     (stream format 2 or 1) when the name ends in .ndjson. Both are read as
                     streams (a JSON file above 64 MiB with a streaming JSON parser, in two
                     passes; NDJSON is faster for large realms)
  --db FILE          SQLite file (default ${DEFAULT_DB}; created if missing)
  --database-url URL PostgreSQL instead (default: $DATABASE_URL when set and --db is not given);
                     the tables are created if missing
  --schema NAME      PostgreSQL schema for the tables (default public; created if missing)
  --realm NAME       Which realm in the file or database (default "default")
  -h, --help         Show this help`;

type StoreArgs = {
  readonly db?: string | undefined;
  readonly realm?: string | undefined;
  readonly 'database-url'?: string | undefined;
  readonly schema?: string | undefined;
};

/** The store a command names: PostgreSQL (--database-url or DATABASE_URL), else a SQLite file. */
function openStore(args: StoreArgs): Promise<{ store: RealmStore; where: string }> {
  const url = databaseUrlOf(args);
  return url === undefined
    ? openSqliteStore(args)
    : // One-shot: no operations run beside the import's checkpoint, so no thread (nor its connection).
      openPostgresStore({ url, realm: args.realm, schema: args.schema, writerThread: false });
}

export async function runExport(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parse(argv, {
    ...STORE_OPTIONS,
    ...POSTGRES_OPTIONS,
    out: { type: 'string' },
    format: { type: 'string' },
  });
  if (args.help) {
    io.out(EXPORT_HELP);
    return 0;
  }
  const toFile = args.out !== undefined && args.out !== '-';
  const format = args.format ?? (toFile && args.out!.endsWith('.ndjson') ? 'ndjson' : 'json');
  if (format !== 'json' && format !== 'ndjson' && format !== 'ndjson1')
    throw new UsageError('--format is json, ndjson or ndjson1');
  const { store, where } = await openStore(args);
  try {
    if (!(await holdsRealm(store)))
      throw new UsageError(`${where} holds no realm (create one with chat-realm import or serve)`);
    const realm = await openRealm({ store, checkpoints: false });
    try {
      const chunks = snapshotChunks(realm.state, { format });
      if (toFile) await writeChunks(args.out!, chunks);
      else for (const chunk of chunks) io.out(chunk.endsWith('\n') ? chunk.slice(0, -1) : chunk);
      io.err(`Exported version ${realm.version} of ${where}`);
    } finally {
      await realm.close();
    }
  } finally {
    await store.close();
  }
  return 0;
}

/** Writes chunks to a file, waiting for the stream to drain (memory stays one chunk deep). */
async function writeChunks(file: string, chunks: Iterable<string>): Promise<void> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  const failed = once(out, 'error').then(([e]) => Promise.reject(e as Error));
  failed.catch(() => undefined);
  for (const chunk of chunks) if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
  out.end();
  await Promise.race([once(out, 'finish'), failed]);
}

/** A snapshot file as a realm: NDJSON streamed line by line, JSON streamed when large (json-snapshot.ts). */
export async function readRealm(file: string): Promise<RealmState> {
  if (!file.endsWith('.ndjson')) return readJsonSnapshot(file);
  const input = createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  try {
    return await createRealmFromChunks(input as AsyncIterable<string>);
  } catch (error) {
    if (error instanceof SnapshotError) throw error;
    throw new UsageError(`Cannot read the snapshot ${file}: ${(error as Error).message}`);
  }
}

export async function runImport(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parse(argv, { ...STORE_OPTIONS, ...POSTGRES_OPTIONS, snapshot: { type: 'string' } });
  if (args.help) {
    io.out(IMPORT_HELP);
    return 0;
  }
  if (args.snapshot === undefined) throw new UsageError('import needs --snapshot FILE');
  const postgres = databaseUrlOf(args) !== undefined;
  const initialState = await readRealm(args.snapshot);
  // A SQLite file this command creates is removed again when the import fails.
  const newFile = !postgres && !(await fileHoldsData(args));
  const { store, where } = await openStore(args);
  try {
    if (await holdsRealm(store)) {
      throw new UsageError(
        `${where} already holds a realm; import into ${postgres ? 'another --schema' : 'a new --db'} (or another --realm)`,
      );
    }
    const realm = await openRealm({ store, initialState });
    io.out(`Imported ${args.snapshot} into ${where} (${realm.state.users.size} users)`);
    await realm.close();
  } catch (error) {
    await store.close();
    // A refused snapshot leaves no file behind.
    if (newFile) await removeNewStore(args);
    throw error;
  } finally {
    await store.close();
  }
  return 0;
}
