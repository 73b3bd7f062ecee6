/**
 * `chat-realm serve`: one realm, persisted in an embedded SQLite file (or in PostgreSQL, which
 * several processes may serve at once), served over HTTP until SIGINT/SIGTERM. A new store starts
 * from `--snapshot`, or from the demo organization.
 */
import { withEventQueues, type LiveRealm } from '../host/live-realm';
import { openRealm, type RealmHandle } from '../host/realm-handle';
import type { RealmStore } from '../host/store';
import type { User } from '../core/model/records';
import type { RealmState } from '../core/state';
import { parseRealm } from '../core/snapshot/create';
import { defaultPasswordHasher } from '../core/passwords';
import { createFetchHandler } from '../server/fetch';
import { serveNode, type NodeServer, type ServeNodeOptions } from '../server/node';
import { FairScheduler } from '../server/fairness';
import { RateLimiter } from '../server/rate-limit';
import type { FetchHandler } from '../server/types';
import { memoryStore } from '../stores/memory/index';
import { liveDemo } from './live-demo';
import { readRealm } from './transfer';
import {
  databaseUrlOf,
  DEFAULT_DB,
  envValue,
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
import { withDevLogin } from '../server/dev-login';
import { DEFAULT_LEASE_MS, openServeLease, type ServeLease } from './serve-lease';
import { REALM_PREFIX, startPlacement } from './serve-placement';

/** Zulip's development server port: the default when neither --port nor PORT is given. */
const DEFAULT_PORT = 9991;

export const SERVE_HELP = `Usage: chat-realm serve [options]

Serves a realm's Zulip REST API (/api/v1/...) over HTTP until Ctrl+C (SIGINT) or SIGTERM.
The realm is kept in an embedded SQLite file, or in PostgreSQL; an existing store opens as it
is. A new store starts from --snapshot, or from a demo organization with known API keys.

Options:
  --db FILE          SQLite file (default $CHAT_REALM_DB, else ${DEFAULT_DB}; created if missing)
  --database-url URL PostgreSQL instead (default: $DATABASE_URL when set and --db is not given);
                     several processes may serve one realm there
  --schema NAME      PostgreSQL schema for the tables (default public)
  --realm NAME       Which realm in the file or database (default "default")
  --lease            With --database-url: one writer per realm. The process that holds the realm's
                     write lease runs every write; the others forward writes to it and answer
                     reads themselves; a survivor takes the lease when its holder dies or stalls
  --lease-ms MS      How long a lease lives without renewal (default ${DEFAULT_LEASE_MS}): the failover bound
  --advertise URL    Where other processes forward writes to this one (default: its listening URL)
  --all-realms       With --database-url: serve every realm of the database whose write lease this
                     process can take, up to --max-realms, each at /realm/NAME/api/v1/...; other
                     processes take the rest, and a dead process's realms are taken by survivors
  --max-realms N     Most realms one process holds with --all-realms (default 100)
  --memory           Keep the realm in memory only (nothing is saved)
  --snapshot FILE    Seed a new store with this snapshot (refused if the store holds a realm)
  --port N           Port (default $PORT, else ${DEFAULT_PORT}); a taken port is an error; 0 for any free port
  --host H           Address to listen on (default 127.0.0.1; 0.0.0.0 for every interface)
  --user EMAIL       Whose credentials to print (default: an administrator)
  --max-body BYTES   Largest request body (default 1048576)
  --rate-limit N/S   Requests per user in S seconds (default 200/60, Zulip's; "off" for none)
  --fair-share MS/S  Event-loop ms a user may use in S seconds while others are active, after
                     a first 100 ms (default 100/1: 10%), one request (or group of queued
                     cheap ones, ~1 ms) per user at a time; "off" for none
  --verbose          Log every request and the events of every change
  --dev-login        Zulip's development login: GET /dev_list_users and POST /dev_fetch_api_key
                     hand anyone any user's API key without a password (never on by default)
  -h, --help         Show this help

Exit codes: 0 stopped cleanly, 1 error, 2 refused (bad arguments, store already holds a realm).`;

const OPTIONS = {
  ...STORE_OPTIONS,
  memory: { type: 'boolean' },
  ...POSTGRES_OPTIONS,
  snapshot: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  user: { type: 'string' },
  'max-body': { type: 'string' },
  'rate-limit': { type: 'string' },
  'fair-share': { type: 'string' },
  verbose: { type: 'boolean' },
  'dev-login': { type: 'boolean' },
  lease: { type: 'boolean' },
  'lease-ms': { type: 'string' },
  advertise: { type: 'string' },
  'all-realms': { type: 'boolean' },
  'max-realms': { type: 'string' },
} as const;

export interface Serving {
  /** The realm served (absent with --all-realms, which serves many). */
  readonly realm?: RealmHandle;
  readonly server: NodeServer;
  /** What to print once the caller is ready for signals: where, and a zuliprc and curl line. */
  readonly banner: string;
  /** Stops the server, then closes the realm (waits for writes in flight). */
  stop(): Promise<void>;
}

/** Starts serving; resolves once the server listens. */
export async function startServe(argv: readonly string[], io: CliIO): Promise<Serving | 'help'> {
  const args = parse(argv, OPTIONS);
  if (args.help) {
    io.out(SERVE_HELP);
    return 'help';
  }
  if (args.memory && args.db !== undefined) throw new UsageError('--memory and --db exclude each other');
  const databaseUrl = databaseUrlOf(args);
  const envPort = envValue('PORT');
  const port =
    args.port !== undefined
      ? integer('--port', args.port, 0, 65535)
      : envPort !== undefined
        ? integer('PORT', envPort, 0, 65535)
        : DEFAULT_PORT;
  const maxBodyBytes =
    args['max-body'] === undefined ? undefined : integer('--max-body', args['max-body'], 0);
  const host = args.host ?? '127.0.0.1';
  const rateLimit = rateLimitOf(args['rate-limit']);
  const fairness = fairnessOf(args['fair-share']);
  if ((args['lease-ms'] !== undefined || args.advertise !== undefined) && !args.lease && !args['all-realms'])
    throw new UsageError('--lease-ms and --advertise need --lease');
  if (args.lease && databaseUrl === undefined)
    throw new UsageError('--lease needs --database-url (PostgreSQL)');
  const leaseMs =
    args['lease-ms'] === undefined ? DEFAULT_LEASE_MS : integer('--lease-ms', args['lease-ms'], 10);
  if (args['max-realms'] !== undefined && !args['all-realms'])
    throw new UsageError('--max-realms needs --all-realms');
  if (args['all-realms']) {
    if (databaseUrl === undefined) throw new UsageError('--all-realms needs --database-url (PostgreSQL)');
    if (args.realm !== undefined || args.snapshot !== undefined)
      throw new UsageError(
        '--all-realms serves the realms already in the database: no --realm or --snapshot',
      );
    const placement = await startPlacement({
      url: databaseUrl,
      schema: args.schema,
      maxRealms: args['max-realms'] === undefined ? 100 : integer('--max-realms', args['max-realms'], 1),
      ttlMs: leaseMs,
      port,
      host,
      advertise: args.advertise,
      onError: (message, error) => io.err(`error: ${message}: ${describeError(error)}`),
    });
    const held = placement.held();
    return {
      server: placement.server,
      banner:
        `chat-realm: serving ${held.length} realm(s) at ${placement.server.url}${REALM_PREFIX}NAME/api/v1/… ` +
        `(write leases of ${leaseMs} ms)${held.length > 0 ? `: ${held.join(', ')}` : ''}\n` +
        `site=${placement.server.url}`,
      stop: () => placement.stop(),
    };
  }

  let store: RealmStore;
  let where: string;
  let serveLease: ServeLease | undefined;
  // Seeding is only ever into a new file: one that did not exist or was empty before this command.
  // (Only a SQLite file: with PostgreSQL, a ./chat-realm.db in the working directory is no concern.)
  const sqliteFile = !args.memory && databaseUrl === undefined;
  const newFile = sqliteFile && !(await fileHoldsData(args));
  if (args.memory) {
    // The one handle on it hears of no other writer: reads are answered without reading the store.
    // One checkpoint kept: nothing is ever loaded from it again, so a second one is only memory.
    store = memoryStore({ watch: true, keepCheckpoints: 1 });
    where = 'memory (nothing is saved)';
  } else if (databaseUrl !== undefined) {
    const leasing = args.lease
      ? await openServeLease({
          url: databaseUrl,
          realm: args.realm ?? 'default',
          schema: args.schema,
          ttlMs: leaseMs,
          onError: (error) => io.err(`error: lease renewal: ${describeError(error)}`),
        })
      : undefined;
    serveLease = leasing;
    ({ store, where } = await openPostgresStore({
      url: databaseUrl,
      realm: args.realm,
      schema: args.schema,
      ...(leasing === undefined ? {} : { lease: leasing.lease }),
    }));
  } else {
    ({ store, where } = await openSqliteStore(args));
  }

  let realm: RealmHandle;
  let origin: string;
  try {
    const existing = await holdsRealm(store);
    if (existing && args.snapshot !== undefined) {
      throw new UsageError(
        `${where} already holds a realm; --snapshot only seeds a new store. ` +
          'Serve it without --snapshot, or use another --db (or --realm).',
      );
    }
    if (!existing && sqliteFile && !newFile) {
      // A file with data or a schema but not this realm: another realm's file, or a store whose
      // -wal file was lost (it then looks empty). Never seed into it, least of all the demo keys.
      throw new UsageError(
        `${where} is an existing file but holds no realm${args.realm === undefined ? '' : ` "${args.realm}"`}; ` +
          'serve only creates a realm in a new file. If it held a realm, its -wal file may be missing ' +
          '(restore it). To add a realm to this file, use chat-realm import --realm NAME.',
      );
    }
    // A file's snapshot is of unknown type: parseRealm checks it (every problem listed) before the
    // store holds anything.
    let initialState: RealmState | undefined;
    if (!existing) {
      if (args.snapshot === undefined) {
        const parsed = parseRealm(await demoSnapshot(host, port));
        if (!parsed.ok) throw parsed.error;
        initialState = parsed.state;
      } else {
        // As import reads it: .ndjson line by line, a large .json streamed.
        initialState = await readRealm(args.snapshot);
      }
    }
    origin = existing
      ? 'opened'
      : args.snapshot === undefined
        ? 'created from the demo organization'
        : `created from ${args.snapshot}`;
    realm = await openRealm({
      store,
      ...(initialState === undefined ? {} : { initialState }),
      // In memory a checkpoint only bounds the log's memory (nothing is loaded from it again): not
      // before the log holds as much as the checkpoint, so each change pays for encoding about its
      // own size of checkpoint (a quarter of that size cost four times as much, 9% of a send's CPU
      // under load), and with one checkpoint kept the log and it stay within twice its size.
      ...(args.memory ? { checkpoints: { minLogShare: 1 } } : {}),
    });
  } catch (error) {
    await serveLease?.stop();
    await store.close();
    // A refused seed leaves no file behind (a schema-only file would be seeded by a later serve).
    if (newFile) await removeNewStore(args);
    throw error;
  }

  let server: NodeServer;
  let text: string;
  // Event queues for POST /register and GET /events (long-poll), shared by every request.
  const live: LiveRealm = withEventQueues(serveLease ? serveLease.wrap(realm) : realm);
  try {
    const user = chooseUser(realm.state, args.user);
    const logger = {
      error: (message: string, error: unknown) => io.err(`error: ${message}: ${describeError(error)}`),
    };
    const limit = { ...(maxBodyBytes === undefined ? {} : { maxBodyBytes }), rateLimit, fairness };
    // The direct node:http path (no Fetch conversions); --verbose logs through the Fetch handler.
    let serving: ServedBy = { realm: live, ...limit };
    if (args.verbose || args['dev-login']) {
      let handler = createFetchHandler({ realm: live, logger, ...limit });
      if (args['dev-login']) handler = withDevLogin(handler, () => realm.state);
      serving = { handler: args.verbose ? logRequests(handler, io) : handler };
    }
    if (args.verbose)
      realm.subscribe((notice) => io.out(`change ${notice.version}: ${notice.events.length} event(s)`));
    server = await listen(serving, port, host, logger);
    await serveLease?.start(args.advertise ?? server.url);
    text = banner(realm, user, server, where, origin);
    if (serveLease)
      text += `\nWrite lease (${leaseMs} ms): ${serveLease.lease.token === undefined ? 'held by another process; writes are forwarded to it' : 'held by this process'}.\n`;
    if (args['dev-login'])
      text +=
        '\nDevelopment login is ON (--dev-login): anyone who can reach this port can get any API key.\n';
  } catch (error) {
    live.close();
    await realm.close();
    await serveLease?.stop();
    throw error;
  }

  let stopping: Promise<void> | undefined;
  return {
    realm,
    server,
    banner: text,
    stop() {
      stopping ??= (async () => {
        try {
          // Waiting long-polls are answered first, so the server can close at once.
          live.close();
          await server.close(2000);
        } finally {
          try {
            await realm.close();
          } finally {
            // Released after the last write: another process takes the realm at once.
            await serveLease?.stop();
          }
        }
      })();
      return stopping;
    },
  };
}

type ServedBy = Pick<ServeNodeOptions, 'handler' | 'realm' | 'maxBodyBytes' | 'rateLimit' | 'fairness'>;

/**
 * While nobody else is active, a user's cheap requests go into the realm as they arrive (joining
 * the open batch), as many at once as its recent cost per request fits in 1 ms: a client that
 * sends many at once (over several connections) is not held to one request, or one batch, at a
 * time, and another user's request still waits behind at most ~1 ms of this user's work beyond
 * one request (src/server/fairness.ts).
 */
const SERVE_GROUPS = { maxGroup: 32, groupMs: 1 } as const;

/** `--fair-share`: "MS/S" (event-loop ms per user per S seconds), "off", or the default 100/1. */
function fairnessOf(spec: string | undefined): FairScheduler | false {
  if (spec === undefined) return new FairScheduler(SERVE_GROUPS);
  if (spec === 'off') return false;
  const m = /^(\d+)\/(\d+)$/.exec(spec);
  if (m === null || Number(m[1]) < 1 || Number(m[2]) < 1)
    throw new UsageError(`--fair-share must be MS/SECONDS (e.g. 100/1) or off, got ${spec}`);
  return new FairScheduler({ ...SERVE_GROUPS, shareMsPerSec: Number(m[1]) / Number(m[2]) });
}

/** `--rate-limit`: "N/S" (N requests per user in S seconds), "off", or Zulip's 200/60 when absent. */
function rateLimitOf(spec: string | undefined): RateLimiter | false {
  if (spec === undefined) return new RateLimiter();
  if (spec === 'off') return false;
  const m = /^(\d+)\/(\d+)$/.exec(spec);
  if (m === null || Number(m[1]) < 1 || Number(m[2]) < 1)
    throw new UsageError(`--rate-limit must be N/SECONDS (e.g. 200/60) or off, got ${spec}`);
  return new RateLimiter({ maxRequests: Number(m[1]), windowSecs: Number(m[2]) });
}

async function listen(
  serving: ServedBy,
  port: number,
  host: string,
  logger: { error(message: string, error: unknown): void },
): Promise<NodeServer> {
  try {
    return await serveNode({ ...serving, port, host, logger });
  } catch (error) {
    // A taken port is an error (never a silent switch: clients would talk to another server);
    // --port 0 asks for any free port.
    if ((error as { code?: unknown }).code === 'EADDRINUSE')
      throw new UsageError(`Port ${port} on ${host} is taken; choose another --port (0 for any free port)`);
    throw error;
  }
}

/**
 * The demo organization (the dev-realm cast: desdemona, iago, hamlet... with known API keys), its
 * `realm.uri` on the address it is first served on: clients (zulip-terminal, the mobile apps) follow the
 * `realm_url` of `/server_settings`, so it must name this server. Port 0 (chosen by the OS) keeps
 * the file's default.
 */
async function demoSnapshot(host: string, port: number): Promise<unknown> {
  const demo = await import('./demo-realm.json');
  // A fresh copy: createRealm must not share objects with the module cache.
  const copy = JSON.parse(JSON.stringify(demo.default)) as { realm: { uri: string } };
  // The address the banner prints: "localhost" may resolve to ::1 where only 127.0.0.1 listens.
  const name = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  if (port !== 0) copy.realm.uri = `http://${name}:${port}`;
  return copy;
}

/** The user whose credentials are printed: `--user`, else an administrator, else any active human. */
function chooseUser(state: RealmState, email: string | undefined): User {
  const humans = [...state.users.values()].filter((u) => u.is_active && !u.is_bot);
  if (email !== undefined) {
    const wanted = email.toLowerCase();
    const user = humans.find(
      (u) => u.delivery_email.toLowerCase() === wanted || u.email.toLowerCase() === wanted,
    );
    if (!user) throw new UsageError(`No active user with the email ${email} in this realm`);
    return user;
  }
  const rank = (u: User) => (u.role === 200 ? 0 : u.role);
  const user = humans.sort((a, b) => rank(a) - rank(b) || a.user_id - b.user_id)[0];
  if (!user)
    throw new UsageError('This realm has no active human user to print credentials for (see --user)');
  return user;
}

/**
 * What `serve` prints once it listens: where, a zuliprc, and commands to copy: a live event seen
 * three ways (curl, Zulip's Python client, zulip-js). test/cli/instructions.test.ts runs them.
 */
function banner(realm: RealmHandle, user: User, server: NodeServer, where: string, origin: string): string {
  const r = realm.state.realm;
  const site = server.url;
  const as = (u: User) => `curl -sSu ${shellQuote(`${u.delivery_email}:${u.api_key}`)}`;
  const demo = liveDemo(realm.state, user, Math.floor(Date.now() / 1000));
  const send =
    demo === undefined
      ? undefined
      : [
          `${as(demo.sender)} ${site}/api/v1/messages -d type=${demo.type}`,
          shellQuote(`to=${demo.to}`),
          ...(demo.topic === undefined ? [] : [shellQuote(`topic=${demo.topic}`)]),
          shellQuote(`content=${demo.content}`),
        ].join(' -d ');
  const watch =
    demo === undefined || send === undefined
      ? []
      : [
          `Watch a live event: paste these three lines into a shell. They register an event queue as`,
          `${user.full_name}, send a message as ${demo.sender.full_name}${demo.type === 'stream' ? ` to #${demo.to}` : ''}, and read ${user.full_name}'s queue:`,
          'it holds the message event.',
          '',
          `  Q=$(${as(user)} ${site}/api/v1/register -d 'event_types=["message"]' | sed -E 's/.*"queue_id":"([^"]+)".*/\\1/')`,
          `  ${send}`,
          `  ${as(user)} -G ${site}/api/v1/events -d "queue_id=$Q" -d last_event_id=-1`,
          '',
          `Or keep a real client printing ${user.full_name}'s events (Ctrl+C stops it) and run the second line again`,
          "in another shell. Zulip's Python client (pip install zulip), with the zuliprc written above:",
          '',
          `  python3 -c 'import zulip; zulip.Client(config_file="${ZULIPRC_FILE}").call_on_each_event(print)'`,
          '',
          'or zulip-js (npm install zulip-js; CommonJS, as node -e runs it):',
          '',
          `  node -e 'require("zulip-js")({ zuliprc: "${ZULIPRC_FILE}" }).then(async (c) => { const q = await c.queues.register({ event_types: ["message"] }); for (let last = q.last_event_id; ; ) { const r = await c.events.retrieve({ queue_id: q.queue_id, last_event_id: last }); for (const e of r.events) { console.log(e); last = e.id; } } })'`,
          '',
        ];
  return [
    `chat-realm: serving "${r.name}" (${where}, ${origin}, version ${realm.version}) at ${site}`,
    '',
    `A zuliprc for ${user.full_name}, for Zulip's clients. This command writes it as ./${ZULIPRC_FILE}`,
    `(not ~/.zuliprc, where your own Zulip account's key may be):`,
    '',
    `  cat > ${ZULIPRC_FILE} <<'EOF'`,
    '[api]',
    `email=${user.delivery_email}`,
    `key=${user.api_key}`,
    `site=${site}`,
    'EOF',
    '',
    'Try:',
    `  ${as(user)} ${site}/api/v1/users/me`,
    '',
    ...passwordLines(user, site),
    '',
    ...watch,
    'Stop with Ctrl+C.',
  ].join('\n');
}

/** The zuliprc file the printed commands write and read: never ~/.zuliprc (a real account's). */
const ZULIPRC_FILE = 'chat-realm-zuliprc';

/**
 * Every human of the demo organization has the password `DEMO_PASSWORD` (src/cli/demo-realm.json):
 * password login (zulip-terminal, the mobile apps, POST /fetch_api_key) works with any of their
 * emails. Printed only when the chosen user's stored hash still verifies it.
 */
export const DEMO_PASSWORD = 'demo-password';

function passwordLines(user: User, site: string): string[] {
  if (user.password_hash === null || !defaultPasswordHasher.verify(DEMO_PASSWORD, user.password_hash))
    return [];
  return [
    `Password login (zulip-terminal, the Zulip apps): any demo user's email with the password ${DEMO_PASSWORD}, e.g.`,
    '',
    `  curl -sS -d username=${user.delivery_email} -d password=${DEMO_PASSWORD} ${site}/api/v1/fetch_api_key`,
    '',
  ];
}

function logRequests(handler: FetchHandler, io: CliIO): FetchHandler {
  return async (request) => {
    const started = performance.now();
    const response = await handler(request);
    const ms = (performance.now() - started).toFixed(1);
    io.out(`${request.method} ${new URL(request.url).pathname} ${response.status} ${ms}ms`);
    return response;
  };
}

function integer(name: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return n;
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9@._:+=-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}
