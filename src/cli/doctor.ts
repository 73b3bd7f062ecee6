/**
 * `chat-realm doctor`: replays a store change by change and says whether it loads, and if not which
 * change fails and why; repairs changes recorded without their topic (`--repair`), or writes the
 * realm at its last good version as a snapshot (`--out`). See docs/persistence.md, "When a replay
 * diverges".
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { snapshotChunks } from '../core/snapshot/snapshot-stream';
import { examineStore, repairStore, type DoctorReport } from '../host/doctor';
import type { RealmStore } from '../host/store';
import {
  databaseUrlOf,
  DEFAULT_DB,
  holdsRealm,
  openPostgresStore,
  openSqliteStore,
  parse,
  POSTGRES_OPTIONS,
  STORE_OPTIONS,
  UsageError,
  type CliIO,
} from './common';

/** The stand-in for a topic the change log lost (see `--lost-topic`). */
const DEFAULT_LOST_TOPIC = '(topic lost)';

export const DOCTOR_HELP = `Usage: chat-realm doctor [--db FILE | --database-url URL] [--realm NAME] [--repair [--lost-topic TEXT]] [--out FILE]

Replays the store's changes from its latest checkpoint, one by one, exactly as a load does, and
reports the first one that cannot be applied (and why), or that the store is healthy.
Stop the servers of the realm first (or at least expect them to be halted).

Options:
  --db FILE          SQLite file (default ${DEFAULT_DB})
  --database-url URL PostgreSQL instead (default: $DATABASE_URL when set and --db is not given)
  --schema NAME      PostgreSQL schema of the tables (default public)
  --realm NAME       Which realm in the file or database (default "default")
  --repair           Replay changes recorded without their topic (a message or scheduled message
                     sent with \`subject\` by chat-realm up to 0.1.x) with --lost-topic instead,
                     and write a checkpoint at the head so every later load starts after them
  --lost-topic TEXT  The stand-in topic (default "${DEFAULT_LOST_TOPIC}")
  --out FILE         Write the realm at its last good version as a snapshot (.ndjson: stream format)
  -h, --help         Show this help

Exit codes: 0 healthy (or repaired), 1 a change cannot be applied, 2 bad arguments.`;

function openStore(args: {
  db?: string | undefined;
  realm?: string | undefined;
  'database-url'?: string | undefined;
  schema?: string | undefined;
}): Promise<{ store: RealmStore; where: string }> {
  const url = databaseUrlOf(args);
  return url === undefined
    ? openSqliteStore(args)
    : openPostgresStore({ url, realm: args.realm, schema: args.schema, writerThread: false });
}

export async function runDoctor(argv: readonly string[], io: CliIO): Promise<number> {
  const args = parse(argv, {
    ...STORE_OPTIONS,
    ...POSTGRES_OPTIONS,
    repair: { type: 'boolean' },
    'lost-topic': { type: 'string' },
    out: { type: 'string' },
  });
  if (args.help) {
    io.out(DOCTOR_HELP);
    return 0;
  }
  if (args['lost-topic'] !== undefined && !args.repair)
    throw new UsageError('--lost-topic goes with --repair');
  const { store, where } = await openStore(args);
  try {
    if (!(await holdsRealm(store))) throw new UsageError(`${where} holds no realm`);
    const lostTopic = args['lost-topic'] ?? DEFAULT_LOST_TOPIC;
    const report = args.repair ? await repairStore(store, { lostTopic }) : await examineStore(store);
    describe(report, where, args.repair === true, lostTopic, io);
    if (args.out !== undefined) {
      await writeSnapshot(args.out, report);
      io.out(`Wrote the realm at version ${report.version} to ${args.out}`);
    }
    return report.failure === undefined ? 0 : 1;
  } finally {
    await store.close();
  }
}

function describe(report: DoctorReport, where: string, repair: boolean, lostTopic: string, io: CliIO): void {
  io.out(`${where}: checkpoint ${report.checkpoint}, head ${report.head}`);
  for (const v of report.repaired)
    io.out(`change ${v}: recorded without its topic; replayed with the topic ${JSON.stringify(lostTopic)}`);
  if (report.failure === undefined) {
    if (report.repaired.length > 0)
      io.out(`Repaired: a checkpoint at version ${report.version} now holds the realm; it loads.`);
    else io.out(`Healthy: every change up to version ${report.version} replays as recorded.`);
    return;
  }
  const f = report.failure;
  io.out(`change ${f.change} cannot be applied: ${f.reason}`);
  io.out(`The realm is right up to version ${report.version}.`);
  if (f.lostTopic && !repair)
    io.out(
      `This change lost its topic (sent as \`subject\` to chat-realm up to 0.1.x). If the process that ` +
        `wrote it still runs, stop it cleanly (SIGTERM): its closing checkpoint holds the topic. ` +
        `Otherwise run chat-realm doctor --repair [--lost-topic TEXT] on this store.`,
    );
  else
    io.out(
      `To go on from version ${report.version}: chat-realm doctor --out FILE writes the realm at that ` +
        `version; import it into a new store (changes after it are lost).`,
    );
}

async function writeSnapshot(file: string, report: DoctorReport): Promise<void> {
  const out = createWriteStream(file, { encoding: 'utf8' });
  const format = file.endsWith('.ndjson') ? 'ndjson' : 'json';
  for (const chunk of snapshotChunks(report.state, { format }))
    if (!out.write(chunk)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}
