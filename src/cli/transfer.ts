/** `chat-realm export` and `chat-realm import`: between a store and a snapshot file. */
import { writeFile } from 'node:fs/promises';
import { snapshotRealm } from '../core/snapshot/export';
import { openRealm } from '../host/realm-handle';
import {
  DEFAULT_DB,
  fileHoldsData,
  holdsRealm,
  openSqliteStore,
  parse,
  readSnapshotFile,
  removeNewStore,
  STORE_OPTIONS,
  UsageError,
  type CliIO,
} from './common';

export const EXPORT_HELP = `Usage: chat-realm export [--db FILE] [--realm NAME] [--out FILE]

Writes the realm in a store, at its latest version, as a snapshot (chat-realm.snapshot/1 JSON).

Options:
  --db FILE      SQLite file (default ${DEFAULT_DB})
  --realm NAME   Which realm in the file (default "default")
  --out FILE     Where to write (default: standard output)
  -h, --help     Show this help`;

export const IMPORT_HELP = `Usage: chat-realm import --snapshot FILE [--db FILE] [--realm NAME]

Creates a store holding the realm of a snapshot (checked first; every problem is listed).
Refused (exit code 2) when the store already holds a realm.

Options:
  --snapshot FILE  The snapshot (JSON, e.g. written by chat-realm export)
  --db FILE        SQLite file (default ${DEFAULT_DB}; created if missing)
  --realm NAME     Which realm in the file (default "default")
  -h, --help       Show this help`;

export async function runExport(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parse(argv, { ...STORE_OPTIONS, out: { type: 'string' } });
  if (args.help) {
    io.out(EXPORT_HELP);
    return 0;
  }
  const { store, where } = await openSqliteStore(args);
  let text: string;
  try {
    if (!(await holdsRealm(store)))
      throw new UsageError(`${where} holds no realm (create one with chat-realm import or serve)`);
    const realm = await openRealm({ store, checkpoints: false });
    try {
      text = `${JSON.stringify(snapshotRealm(realm.state))}\n`;
      io.err(`Exported version ${realm.version} of ${where}`);
    } finally {
      await realm.close();
    }
  } finally {
    await store.close();
  }
  if (args.out === undefined || args.out === '-') io.out(text);
  else await writeFile(args.out, text);
  return 0;
}

export async function runImport(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parse(argv, { ...STORE_OPTIONS, snapshot: { type: 'string' } });
  if (args.help) {
    io.out(IMPORT_HELP);
    return 0;
  }
  if (args.snapshot === undefined) throw new UsageError('import needs --snapshot FILE');
  const snapshot = await readSnapshotFile(args.snapshot);
  const newFile = !(await fileHoldsData(args));
  const { store, where } = await openSqliteStore(args);
  try {
    if (await holdsRealm(store)) {
      throw new UsageError(`${where} already holds a realm; import into a new --db (or another --realm)`);
    }
    const realm = await openRealm({ store, snapshot });
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
