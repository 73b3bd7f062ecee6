/**
 * What `serve` keeps between requests to answer them faster (issue 29, HTTP): GET /users/me's
 * answer and its JSON text, memoized per user record; and reads answered at once by a handle whose
 * store tells it of other writers. Each must answer exactly what a fresh computation answers, and
 * stop being used the moment anything it shows changes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { bodyJson } from '../../src/core/body-json';
import { withEventQueues, type LiveRealm } from '../../src/host/live-realm';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { serveNode, type NodeServer } from '../../src/server/node';
import type { RealmStore } from '../../src/host/store';
import { memoryStore } from '../../src/stores/memory/index';
import { getOwnUser } from '../../src/ops/users/getOwnUser';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { basicAuthHeader } from '../../src/wire/auth';
import { handleApiRequest } from '../../src/wire/handle';
import { expectValidResponse } from '../support/openapi';
import { as, cast, devRealm, devSnapshot, testCtx } from '../support/realm';

const ctx = { now: 1795219200, random: seededRandom(29) };
const hamlet = devRealm().users.get(cast.hamlet)!;
const authorization = basicAuthHeader(hamlet.delivery_email, hamlet.api_key);

let server: NodeServer | undefined;
let live: LiveRealm | undefined;
const handles: RealmHandle[] = [];
afterEach(async () => {
  await server?.close();
  server = undefined;
  live?.close();
  live = undefined;
  for (const h of handles.splice(0)) await h.close();
});

async function serve(): Promise<{
  handle: RealmHandle;
  call: (m: string, p: string, b?: string) => Promise<string>;
}> {
  const handle = await openRealm({ store: memoryStore({ watch: true }), snapshot: devSnapshot(), ctx });
  handles.push(handle);
  live = withEventQueues(handle);
  server = await serveNode({ realm: live, fairness: {}, rateLimit: { maxRequests: 10_000 } });
  const url = server.url;
  const call = async (method: string, path: string, body?: string) => {
    const r = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: {
        authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(body === undefined ? {} : { body }),
    });
    const text = await r.text();
    expect(r.status, text).toBe(200);
    return text;
  };
  return { handle, call };
}

/** The answer computed afresh from the handle's state, serialized without any memo. */
function fresh(handle: RealmHandle): string {
  const r = handleApiRequest(handle.state, {
    method: 'GET',
    url: '/api/v1/users/me',
    headers: { authorization },
  });
  return JSON.stringify(r.body);
}

describe('GET /users/me, memoized per user record', () => {
  it('shows a new full name, new profile data and a new last message at once, byte for byte', async () => {
    const { handle, call } = await serve();
    const first = await call('GET', '/users/me');
    expect(first).toBe(fresh(handle));
    expect(await call('GET', '/users/me')).toBe(first);

    await call('PATCH', '/settings', 'full_name=Prince%20Hamlet');
    const renamed = await call('GET', '/users/me');
    expect(JSON.parse(renamed)).toMatchObject({ full_name: 'Prince Hamlet' });
    expect(renamed).toBe(fresh(handle));

    await call(
      'PATCH',
      '/users/me/profile_data',
      `data=${encodeURIComponent('[{"id":1,"value":"+45 555 0199"}]')}`,
    );
    const profiled = await call('GET', '/users/me');
    expect(JSON.parse(profiled)).toMatchObject({ profile_data: { '1': { value: '+45 555 0199' } } });
    expect(profiled).toBe(fresh(handle));

    const sent = JSON.parse(await call('POST', '/messages', 'type=stream&to=2&topic=memo&content=hi')) as {
      id: number;
    };
    const after = JSON.parse(await call('GET', '/users/me')) as { max_message_id: number };
    expect(after.max_message_id).toBe(sent.id);
    expectValidResponse('get-own-user', 200, after);
  });

  it('gives the same body object for the same inputs, and a new one when the realm or a field definition changes', () => {
    const state = devRealm();
    const a = getOwnUser(state, as('hamlet'), {}, testCtx()).body;
    expect(getOwnUser(state, as('hamlet'), {}, testCtx()).body).toBe(a);
    expect(bodyJson(a)).toBe(JSON.stringify(a));
    expect(bodyJson(a)).toBe(bodyJson(a));

    const otherHost = { ...state, realm: { ...state.realm, uri: 'https://elsinore.example.com' } };
    const b = getOwnUser(otherHost, as('hamlet'), {}, testCtx()).body;
    expect(b).not.toBe(a);
    expect(b).toEqual(a); // hamlet's address is public: the host does not show, but it was recomputed

    const field = state.customProfileFields.get(1)!;
    const renamedField = {
      ...state,
      customProfileFields: state.customProfileFields.set(1, { ...field, name: 'Telephone' }),
    };
    expect(getOwnUser(renamedField, as('hamlet'), {}, testCtx()).body).not.toBe(a);

    const sent = sendMessage(
      state,
      as('hamlet'),
      { type: 'stream', to: 2, topic: 'memo', content: 'hi' },
      testCtx(),
    );
    expect(sent.status).toBe(200);
    const later = getOwnUser(sent.state, as('hamlet'), {}, testCtx()).body;
    expect(later).not.toBe(a);
    expect(later['max_message_id']).toBe(sent.body['id']);
  });
});

describe('reads answered at once by a handle whose store notifies it', () => {
  it('see what another handle on the store acknowledged, without a catch-up call', async () => {
    const store = memoryStore({ watch: true });
    const writer = await openRealm({ store, snapshot: devSnapshot(), ctx });
    const reader = await openRealm({ store, ctx, checkpoints: false });
    handles.push(writer, reader);
    const me = { method: 'GET', url: '/api/v1/users/me', headers: { authorization } };
    expect((await reader.request(me)).body).toMatchObject({ full_name: 'King Hamlet' });
    await writer.request({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers: { authorization },
      body: 'full_name=Yorick',
    });
    const read = await reader.request(me);
    expect(read.body).toMatchObject({ full_name: 'Yorick' });
    expect(read.version).toBe(writer.version);
  });

  it('read the store first when its notifications may come late (as PostgreSQL does)', async () => {
    const shared = memoryStore({ watch: true });
    // Watched, but told of nothing in time: like a NOTIFY still on its way.
    const late: RealmStore = { ...shared, watch: async () => async () => {}, watchIsSynchronous: false };
    const writer = await openRealm({ store: shared, snapshot: devSnapshot(), ctx });
    const reader = await openRealm({ store: late, ctx, checkpoints: false });
    handles.push(writer, reader);
    const me = { method: 'GET', url: '/api/v1/users/me', headers: { authorization } };
    expect((await reader.request(me)).body).toMatchObject({ full_name: 'King Hamlet' });
    await writer.request({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers: { authorization },
      body: 'full_name=Laertes',
    });
    expect((await reader.request(me)).body).toMatchObject({ full_name: 'Laertes' });
  });

  it('see a change asked for before them on the same handle, even when not awaited', async () => {
    const handle = await openRealm({ store: memoryStore({ watch: true }), snapshot: devSnapshot(), ctx });
    handles.push(handle);
    const write = handle.request({
      method: 'PATCH',
      url: '/api/v1/settings',
      headers: { authorization },
      body: 'full_name=Ophelia%27s%20friend',
    });
    const read = handle.request({ method: 'GET', url: '/api/v1/users/me', headers: { authorization } });
    expect((await write).status).toBe(200);
    expect((await read).body).toMatchObject({ full_name: "Ophelia's friend" });
  });
});
