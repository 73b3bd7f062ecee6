/**
 * Presence through an event-queue host: volatile host state (docs/ARCHITECTURE.md, "Presence"),
 * never a change-log record, and `presence` events in the three shapes Zulip's Tornado sends.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { withEventQueues, type LiveRealm } from '../../src/host/live-realm';
import { openRealm } from '../../src/host/realm-handle';
import { memoryStore } from '../../src/stores/memory/index';
import { seededRandom } from '../../src/core/context';
import { basicAuthHeader } from '../../src/wire/auth';
import { expectValidEvent } from '../support/openapi';
import { cast, devRealm, devSnapshot } from '../support/realm';

let nowMs = 1795219200_000;
const clock = {
  now: () => nowMs,
  setTimer: (fn: () => void, ms: number) => setTimeout(fn, ms),
  clearTimer: (t: unknown) => clearTimeout(t as ReturnType<typeof setTimeout>),
};
let live: LiveRealm | undefined;
afterEach(() => {
  live?.close();
  live = undefined;
});

function auth(userId: number): Record<string, string> {
  const u = devRealm().users.get(userId)!;
  return { authorization: basicAuthHeader(u.delivery_email, u.api_key) };
}

async function start() {
  const store = memoryStore();
  const handle = await openRealm({ store, snapshot: devSnapshot(), ctx: { random: seededRandom(3) } });
  live = withEventQueues(handle, { clock, gcIntervalMs: 0, heartbeatSecs: () => 1 });
  return { store, handle, live };
}

function post(l: LiveRealm, userId: number, path: string, body: Record<string, string>) {
  return l.request({
    method: 'POST',
    url: `/api/v1${path}`,
    headers: auth(userId),
    body: new URLSearchParams(body).toString(),
  });
}

async function events(l: LiveRealm, userId: number, queueId: string) {
  const r = await l.request({
    method: 'GET',
    url: `/api/v1/events?queue_id=${queueId}&last_event_id=-1&dont_block=true`,
    headers: auth(userId),
  });
  return r.body['events'] as Array<Record<string, unknown>>;
}

describe('presence in an event-queue host', () => {
  it('a storm of pings leaves the change log and the realm version untouched', async () => {
    const { store, handle, live: l } = await start();
    const first = l.presence.lastUpdateId;
    for (let i = 0; i < 300; i++) {
      nowMs += 20_000;
      const who = [cast.hamlet, cast.cordelia, cast.iago][i % 3]!;
      const r = await post(l, who, '/users/me/presence', {
        status: i % 2 ? 'idle' : 'active',
        ping_only: 'true',
      });
      expect(r.status).toBe(200);
    }
    expect(handle.version).toBe(0);
    expect(await store.changesSince(0)).toEqual([]);
    expect(l.presence.size).toBe(3);
    expect(l.presence.lastUpdateId).toBeGreaterThan(first + 3);
  });

  it('register answers presences from the table, in the legacy or the slim format', async () => {
    const { live: l } = await start();
    const startId = l.presence.lastUpdateId;
    await post(l, cast.cordelia, '/users/me/presence', { status: 'active', ping_only: 'true' });
    const legacy = await post(l, cast.hamlet, '/register', { event_types: '["presence"]' });
    const email = devRealm().users.get(cast.cordelia)!.email;
    expect(legacy.body['presences']).toEqual({
      [email]: {
        aggregated: { client: 'website', status: 'active', timestamp: nowMs / 1000 },
        website: { client: 'website', status: 'active', timestamp: nowMs / 1000, pushable: false },
      },
    });
    expect(legacy.body['presence_last_update_id']).toBe(startId + 1);
    const slim = await post(l, cast.hamlet, '/register', {
      event_types: '["presence"]',
      slim_presence: 'true',
    });
    expect(slim.body['presences']).toEqual({
      [String(cast.cordelia)]: { active_timestamp: nowMs / 1000, idle_timestamp: nowMs / 1000 },
    });
  });

  it('delivers presence events as legacy, slim and simplified (modern) events', async () => {
    const { live: l } = await start();
    const reg = async (extra: Record<string, string>) =>
      (await post(l, cast.hamlet, '/register', { event_types: '["presence"]', ...extra })).body[
        'queue_id'
      ] as string;
    const legacyQ = await reg({});
    const slimQ = await reg({ slim_presence: 'true' });
    const modernQ = await reg({ client_capabilities: '{"simplified_presence_events": true}' });
    await post(l, cast.cordelia, '/users/me/presence', { status: 'active', ping_only: 'true' });
    const t = nowMs / 1000;
    const email = devRealm().users.get(cast.cordelia)!.email;
    const website = { client: 'website', status: 'active', timestamp: t, pushable: false };
    const [legacy] = await events(l, cast.hamlet, legacyQ);
    expect(legacy).toEqual({
      type: 'presence',
      user_id: cast.cordelia,
      email,
      server_timestamp: t,
      presence: { website },
      id: 0,
    });
    expectValidEvent(legacy);
    const [slim] = await events(l, cast.hamlet, slimQ);
    expect(slim).toEqual({
      type: 'presence',
      user_id: cast.cordelia,
      server_timestamp: t,
      presence: { website },
      id: 0,
    });
    const [modern] = await events(l, cast.hamlet, modernQ);
    expect(modern).toEqual({
      type: 'presence',
      presences: { [String(cast.cordelia)]: { active_timestamp: t, idle_timestamp: t } },
      id: 0,
    });
  });
});

describe('presence after a restart', () => {
  it('a new host hands out ids above the old ones: an old last_update_id still gets every row', async () => {
    const a = await start();
    await post(a.live, cast.cordelia, '/users/me/presence', { status: 'active', ping_only: 'true' });
    const old = a.live.presence.lastUpdateId;
    a.live.close();
    nowMs += 1000;
    const b = await start();
    await post(b.live, cast.othello, '/users/me/presence', { status: 'active', ping_only: 'true' });
    const poll = await post(b.live, cast.hamlet, '/users/me/presence', {
      status: 'idle',
      last_update_id: String(old),
    });
    expect(Object.keys(poll.body['presences'] as object).sort()).toEqual(
      [String(cast.hamlet), String(cast.othello)].sort(),
    );
  });
});

describe('typing in an event-queue host', () => {
  it('delivers typing events without a change; channel typing only to stream_typing_notifications clients', async () => {
    const { store, live: l } = await start();
    const reg = async (extra: Record<string, string>) =>
      (await post(l, cast.hamlet, '/register', { event_types: '["typing"]', ...extra })).body[
        'queue_id'
      ] as string;
    const plain = await reg({});
    const capable = await reg({ client_capabilities: '{"stream_typing_notifications": true}' });
    expect((await post(l, cast.cordelia, '/typing', { op: 'start', to: `[${cast.hamlet}]` })).status).toBe(
      200,
    );
    expect(
      (await post(l, cast.iago, '/typing', { type: 'channel', op: 'start', stream_id: '5', topic: 'x' }))
        .status,
    ).toBe(200);
    expect((await events(l, cast.hamlet, plain)).map((e) => e['message_type'])).toEqual(['direct']);
    expect((await events(l, cast.hamlet, capable)).map((e) => e['message_type'])).toEqual([
      'direct',
      'stream',
    ]);
    expect(await store.changesSince(0)).toEqual([]);
  });
});
