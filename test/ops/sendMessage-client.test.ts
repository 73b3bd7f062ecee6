/**
 * The sending client of a message (Zulip's `sending_client`): named by the `client` parameter, else
 * by the User-Agent over HTTP, shown in every message dict, kept by edits, snapshots, checkpoints
 * and replays; and `read_by_sender`'s default follows it (`Client.default_read_by_sender`).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom } from '../../src/core/context';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { getRowFlags } from '../../src/core/messages/rows';
import { getMessage as readMessage } from '../../src/core/messages/store';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { createRealmFromChunks, snapshotChunks } from '../../src/core/snapshot/snapshot-stream';
import type { RealmState } from '../../src/core/state';
import { sealChange, type RequestInput } from '../../src/host/change';
import { openCheckpoint, sealRealmCheckpoint } from '../../src/host/checkpoint';
import { openRealm } from '../../src/host/realm-handle';
import type { RealmStore } from '../../src/host/store';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { memoryStore } from '../../src/stores/memory/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { handleApiRequest } from '../../src/wire/handle';
import { loose } from '../support/loose';
import { expectValidResponse } from '../support/openapi';
import { as, cast, devRealm, devSnapshot, testCtx, wire } from '../support/realm';

const NOW = 1795219200;
const LONG = 'A very long integration name that goes on';

function post(state: RealmState, params: Record<string, string>, userAgent?: string) {
  const hamlet = state.users.get(cast.hamlet)!;
  return handleApiRequest(
    state,
    {
      method: 'POST',
      url: '/api/v1/messages',
      headers: {
        authorization: basicAuthHeader(hamlet.delivery_email, hamlet.api_key),
        ...(userAgent === undefined ? {} : { 'User-Agent': userAgent }),
      },
      body: new URLSearchParams({
        type: 'stream',
        to: 'Verona',
        topic: 'clients',
        content: 'hi',
        ...params,
      }).toString(),
    },
    testCtx(),
  );
}

function sentId(r: { status: number; body: unknown }): number {
  expect(r.status).toBe(200);
  return (r.body as { id: number }).id;
}

function clientOf(state: RealmState, id: number): string {
  const r = wire(state, 'hamlet', 'GET', `/messages/${id}`);
  expect(r.status).toBe(200);
  return (r.body as unknown as { message: { client: string } }).message.client;
}

function readBySender(state: RealmState, id: number): boolean {
  const rows = state.messages.rows.get(cast.hamlet);
  return ((rows === undefined ? 0 : (getRowFlags(rows, id) ?? 0)) & FLAG_BITS.read) !== 0;
}

describe('the sending client', () => {
  it('is the User-Agent name over HTTP; full-UI clients mark their own message read', () => {
    const realm = devRealm();
    const py = post(realm, {}, 'ZulipPython/0.8.2 (Linux; Debian GNU/Linux 12)');
    expect(clientOf(py.state, sentId(py))).toBe('ZulipPython');
    expect(readBySender(py.state, sentId(py))).toBe(false);
    const zt = post(realm, {}, 'ZulipTerminal/0.7.0 Linux (Linux; Debian 12)');
    expect(clientOf(zt.state, sentId(zt))).toBe('ZulipTerminal');
    expect(readBySender(zt.state, sentId(zt))).toBe(true);
    const none = post(realm, {});
    expect(clientOf(none.state, sentId(none))).toBe('Unspecified');
  });

  it('is the `client` parameter when sent, which wins over the User-Agent; read_by_sender still wins', () => {
    const realm = devRealm();
    const web = post(realm, { client: 'website' }, 'ZulipPython/0.8.2');
    expect(clientOf(web.state, sentId(web))).toBe('website');
    expect(readBySender(web.state, sentId(web))).toBe(true);
    const unread = post(realm, { client: 'website', read_by_sender: 'false' });
    expect(readBySender(unread.state, sentId(unread))).toBe(false);
    // `client` is read, so never listed as ignored.
    expect(web.body).not.toHaveProperty('ignored_parameters_unsupported');
  });

  it('keeps a name outside the known list, cut to 30 characters, and forgets it with the message', () => {
    const realm = devRealm();
    const r = post(realm, { client: LONG });
    const id = sentId(r);
    expect(clientOf(r.state, id)).toBe(LONG.slice(0, 30));
    expect(r.state.messages.clients.get(id)).toBe(LONG.slice(0, 30));
    const gone = wire(r.state, 'hamlet', 'DELETE', `/messages/${id}`);
    // Hamlet may not delete (realm policy) or may: either way the table follows the store.
    if (gone.status === 200) expect(gone.state.messages.clients.has(id)).toBe(false);
  });

  it('is "API" for a library call without one, as before, and read_by_sender defaults to false', () => {
    const realm = devRealm();
    const r = loose(sendMessage)(
      realm,
      as('hamlet'),
      { type: 'stream', to: 'Verona', topic: 'lib', content: 'x' },
      testCtx(),
    );
    const id = sentId(r);
    expect(clientOf(r.state, id)).toBe('API');
    expect(readBySender(r.state, id)).toBe(false);
    const withClient = loose(sendMessage)(
      realm,
      as('hamlet'),
      { type: 'stream', to: 'Verona', topic: 'lib', content: 'x', client: 'ZulipMobile' },
      testCtx(),
    );
    expect(clientOf(withClient.state, sentId(withClient))).toBe('ZulipMobile');
    expect(readBySender(withClient.state, sentId(withClient))).toBe(true);
  });

  it('is in the message event and in GET /messages, which validate against the schema', () => {
    const realm = devRealm();
    const r = post(realm, {}, 'ZulipFlutter/30.0 (Android 14)');
    const id = sentId(r);
    const event = r.events.find((e) => e.event.type === 'message')!;
    expect((event.event as unknown as { message: { client: string } }).message.client).toBe('ZulipFlutter');
    const fetched = wire(r.state, 'hamlet', 'GET', '/messages', {
      anchor: String(id),
      num_before: '0',
      num_after: '0',
    });
    expectValidResponse('get-messages', fetched.status, fetched.body);
    expect((fetched.body as unknown as { messages: Array<{ client: string }> }).messages[0]!.client).toBe(
      'ZulipFlutter',
    );
    // A direct message too.
    const dm = post(realm, { type: 'private', to: JSON.stringify([cast.iago]) }, 'ZulipTerminal/0.7.0');
    expect(clientOf(dm.state, sentId(dm))).toBe('ZulipTerminal');
  });

  it('is kept by an edit of the content', () => {
    const realm = devRealm();
    const r = post(realm, {}, 'ZulipPython/0.8.2');
    const id = sentId(r);
    const edited = wire(r.state, 'hamlet', 'PATCH', `/messages/${id}`, { content: 'edited' });
    expect(edited.status).toBe(200);
    expect(readMessage(edited.state.messages, id)?.content).toBe('edited');
    expect(clientOf(edited.state, id)).toBe('ZulipPython');
  });

  it('survives a snapshot, a streamed snapshot (both formats) and a checkpoint', () => {
    let state = devRealm();
    const ids: number[] = [];
    for (const [ua, client] of [
      ['ZulipPython/1', undefined],
      [undefined, LONG],
      [undefined, undefined],
    ] as const) {
      const r = post(state, client === undefined ? {} : { client }, ua);
      ids.push(sentId(r));
      state = r.state;
    }
    const lib = loose(sendMessage)(
      state,
      as('hamlet'),
      { type: 'stream', to: 'Verona', topic: 'lib', content: 'x' },
      testCtx(),
    );
    ids.push(sentId(lib));
    state = lib.state;
    const expected = ['ZulipPython', LONG.slice(0, 30), 'Unspecified', 'API'];
    const snapshot = snapshotRealm(state);
    const last = snapshot.messages[snapshot.messages.length - 1]!;
    expect(last).not.toHaveProperty('client'); // "API" is left out: older snapshots stay as they were
    const copies = [
      createRealm(snapshot),
      createRealm(JSON.parse(JSON.stringify(snapshot)) as typeof snapshot),
      createRealmFromChunks(snapshotChunks(state)),
      createRealmFromChunks(snapshotChunks(state, { format: 'ndjson1' })),
      openCheckpoint(sealRealmCheckpoint(1, state), 'here'),
    ];
    for (const copy of copies) {
      expect(ids.map((id) => clientOf(copy, id))).toEqual(expected);
      expect(snapshotRealm(copy)).toEqual(snapshot);
    }
  });

  it('refuses a snapshot client that is not a string of at most 30 characters', () => {
    const snapshot = devSnapshot();
    const message = {
      id: 9999,
      sender_id: cast.hamlet,
      stream_id: 1,
      topic: 't',
      content: 'x',
      timestamp: NOW,
    };
    expect(() => createRealm({ ...snapshot, messages: [{ ...message, client: 'x'.repeat(31) }] })).toThrow(
      /client/,
    );
    expect(() =>
      createRealm({ ...snapshot, messages: [{ ...message, client: 5 as unknown as string }] }),
    ).toThrow(/client/);
  });
});

describe('the sending client through a handle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chat-realm-client-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ctx = { now: NOW, random: seededRandom(3) };
  const hamlet = devRealm().users.get(cast.hamlet)!;
  const auth = basicAuthHeader(hamlet.delivery_email, hamlet.api_key);

  it("is recorded as the request's field, so a reopened store shows the same client and flags", async () => {
    const filename = join(dir, 'replay.db');
    const h = await openRealm({
      store: sqliteStore({ filename, writerThread: false }),
      snapshot: devSnapshot(),
      ctx,
      checkpoints: false,
    });
    const sent = await h.request({
      method: 'POST',
      url: '/api/v1/messages',
      headers: { authorization: auth, 'user-agent': 'ZulipTerminal/0.7.0 Linux' },
      body: 'type=stream&to=Verona&subject=replayed&content=hello',
    });
    const id = sentId(sent);
    const before = h.state;
    await h.close();
    const again = await openRealm({
      store: sqliteStore({ filename, writerThread: false }),
      checkpoints: false,
    });
    expect(clientOf(again.state, id)).toBe('ZulipTerminal');
    expect(readBySender(again.state, id)).toBe(true);
    expect(snapshotRealm(again.state)).toEqual(snapshotRealm(before));
    await again.close();
  });

  it('replays a send stored before clients were recorded as "API", as it was acknowledged', async () => {
    const store: RealmStore = memoryStore();
    const h = await openRealm({ store, snapshot: devSnapshot(), ctx, checkpoints: false });
    await h.close();
    const input: RequestInput = {
      kind: 'request',
      actor: { userId: cast.hamlet },
      method: 'POST',
      url: '/api/v1/messages',
      body: { type: 'stream', to: 'Verona', topic: 'old', content: 'stored by 0.1' },
    };
    await store.append(sealChange({ version: 1, input, now: NOW, random: '', status: 200 }, 0), 0);
    const again = await openRealm({ store, checkpoints: false });
    const id = again.state.messages.lastId;
    expect(clientOf(again.state, id)).toBe('API');
    expect(readBySender(again.state, id)).toBe(false);
    await again.close();
  });
});

describe('the client parameter elsewhere', () => {
  it('is never listed as ignored: Zulip reads it on every request', () => {
    const r = wire(devRealm(), 'hamlet', 'POST', '/saved_snippets', {
      title: 't',
      content: 'c',
      client: 'ZulipTerminal',
      junk: 'x',
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ignored_parameters_unsupported: ['junk'] });
  });
});
