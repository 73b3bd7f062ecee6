/**
 * A change made through another process reaches this process's queues through the PostgreSQL
 * store's notifications: hamlet long-polls a queue here; a child process (the library directly,
 * no HTTP) edits a channel on the same realm; the poll is answered with the event. Without
 * DATABASE_URL (PGlite is in-process only) the "other process" is a second realm handle on the same
 * PGlite instance, which exercises the same LISTEN/NOTIFY path in one process.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withEventQueues, type LiveRealm } from '../../src/host/live-realm';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { basicAuthHeader } from '../../src/wire/auth';
import { editChannel } from '../../src/ops/index';
import { postgresStore } from '../../src/stores/postgres/index';
import { cast, devSnapshot } from '../support/realm';
import { openDatabase, uniqueSchema, usingServer, type PgHandle } from '../stores/pg-backing';

const CHILD = new URL('./pg-writer-child.ts', import.meta.url).pathname;
const ROOT = new URL('../..', import.meta.url).pathname;

let db: PgHandle;
let handle: RealmHandle;
let live: LiveRealm;
const schema = uniqueSchema();

beforeAll(async () => {
  db = await openDatabase();
  handle = await openRealm({
    store: await postgresStore({ client: db.client, realm: 'live', schema }),
    snapshot: devSnapshot(),
  });
  live = withEventQueues(handle, { heartbeatSecs: () => 55 });
}, 60_000);

afterAll(async () => {
  live?.close();
  await handle?.close();
  await db?.client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await db?.end();
});

function writeInChild(description: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', CHILD, schema, description], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`writer exited ${code}: ${err}`))));
  });
}

async function writeInOtherHandle(description: string): Promise<string> {
  const other = await openRealm({ store: await postgresStore({ client: db.client, realm: 'live', schema }) });
  const r = await other.run(editChannel, { userId: cast.iago }, { stream_id: 3, description });
  await other.close();
  return `ack ${r.version} ${r.status}\n`;
}

const hamlet = () => {
  const u = handle.state.users.get(cast.hamlet)!;
  return { authorization: basicAuthHeader(u.delivery_email, u.api_key) };
};

describe('a queue in one process receives a change made through another', () => {
  it(
    usingServer ? 'two processes on PostgreSQL' : 'two realm handles on one PGlite',
    async () => {
      const reg = await live.request({
        method: 'POST',
        url: '/api/v1/register',
        headers: hamlet(),
        body: 'event_types=%5B%22stream%22%5D',
      });
      expect(reg.status).toBe(200);
      const queueId = String(reg.body['queue_id']);
      const poll = live.request({
        method: 'GET',
        url: `/api/v1/events?queue_id=${queueId}&last_event_id=-1`,
        headers: hamlet(),
      });
      const ack = usingServer
        ? await writeInChild('Written elsewhere')
        : await writeInOtherHandle('Written elsewhere');
      expect(ack).toMatch(/^ack \d+ 200/);
      // Bounded: the poll is answered by the notification, long before its 55 s heartbeat.
      const got = await Promise.race([
        poll,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('no event within 20 s')), 20_000),
        ),
      ]);
      expect(got.body['events']).toEqual([
        expect.objectContaining({
          id: 0,
          type: 'stream',
          op: 'update',
          property: 'description',
          value: 'Written elsewhere',
        }),
      ]);
    },
    60_000,
  );
});
