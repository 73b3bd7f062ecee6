import { describe, expect, it } from 'vitest';
import { nextMessageId } from '../../src/core/messages/store-append';
import { getMessage } from '../../src/core/messages/store';
import { createRealm, parseRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { createRealmFromChunks, snapshotChunks } from '../../src/core/snapshot/snapshot-stream';
import type { RealmState } from '../../src/core/state';
import { openCheckpoint, sealCheckpoint, sealRealmCheckpoint } from '../../src/host/checkpoint';
import { checksum } from '../../src/host/checksum';
import { deleteTopic } from '../../src/ops/channels/deleteTopic';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { simulateRealm } from '../../src/simulate/index';
import { snapshotText } from '../../src/simulate/snapshot-text';
import { as, devRealm, devSnapshot, testCtx } from '../support/realm';

/** Sends to Verona > `topic` as hamlet; the new message's id. */
function send(state: RealmState, topic: string): { state: RealmState; id: number } {
  const r = sendMessage(state, as('hamlet'), { type: 'stream', to: 1, topic, content: 'hi' }, testCtx());
  expect(r.status).toBe(200);
  return { state: r.state, id: (r.body as unknown as { id: number }).id };
}

/** The dev realm whose newest message (Verona > doomed) was sent and then deleted. */
function afterDeletingNewest(): { state: RealmState; deleted: number } {
  const sent = send(devRealm(), 'doomed');
  const r = deleteTopic(sent.state, as('iago'), { stream_id: 1, topic_name: 'doomed' }, testCtx());
  expect(r.status).toBe(200);
  expect(getMessage(r.state.messages, sent.id)).toBeUndefined();
  return { state: r.state, deleted: sent.id };
}

/** A realm loaded back from `state` must give the next message the id `state` would. */
function expectSameNextId(loaded: RealmState, deleted: number): void {
  expect(loaded.messages.lastId).toBe(deleted);
  expect(send(loaded, 'again').id).toBe(deleted + 1);
}

describe('message ids are never reused', () => {
  it('after the newest message is deleted, the next message takes a new, larger id', () => {
    const { state, deleted } = afterDeletingNewest();
    expect(nextMessageId(state.messages)).toBe(deleted + 1);
    const again = send(state, 'again');
    expect(again.id).toBe(deleted + 1);
    expect(getMessage(again.state.messages, deleted)).toBeUndefined();
  });

  it('a snapshot carries last_message_id only when above every stored message', () => {
    expect(snapshotRealm(devRealm())).not.toHaveProperty('last_message_id');
    const { state, deleted } = afterDeletingNewest();
    const snapshot = snapshotRealm(state);
    expect(snapshot.last_message_id).toBe(deleted);
    // Next to `messages`, in the canonical order.
    const keys = Object.keys(snapshot);
    expect(keys[keys.indexOf('messages') + 1]).toBe('last_message_id');
    expect(snapshotRealm(send(state, 'again').state)).not.toHaveProperty('last_message_id');
  });

  it('survives snapshotRealm → createRealm (through JSON)', () => {
    const { state, deleted } = afterDeletingNewest();
    const loaded = createRealm(JSON.parse(JSON.stringify(snapshotRealm(state))));
    expectSameNextId(loaded, deleted);
    expect(snapshotRealm(loaded)).toEqual(snapshotRealm(state));
  });

  it('without last_message_id, the largest stored id is the high-water mark', () => {
    const state = createRealm(devSnapshot());
    const newest = Math.max(...devSnapshot().messages.map((m) => m.id));
    expect(state.messages.lastId).toBe(newest);
    expect(createRealm({ format: 'chat-realm.snapshot/1' }).messages.lastId).toBe(0);
  });

  it('takes a last_message_id above every message, even with no messages at all', () => {
    const snapshot = { ...devSnapshot(), last_message_id: 5000 };
    expect(send(createRealm(snapshot), 'x').id).toBe(5001);
    const empty = createRealm({ ...devSnapshot(), messages: [], last_message_id: 7 });
    expect(empty.messages.lastId).toBe(7);
    expect(snapshotRealm(empty).last_message_id).toBe(7);
  });

  it('refuses a last_message_id below a stored message, or not an id', () => {
    const snapshot = devSnapshot();
    const newest = Math.max(...snapshot.messages.map((m) => m.id));
    const low = parseRealm({ ...snapshot, last_message_id: newest - 1 });
    expect(low.ok ? [] : low.error.issues).toEqual([
      {
        path: 'last_message_id',
        message: `${newest - 1} is below message id ${newest}: it is the largest id the realm ever had`,
      },
    ]);
    // Equal to the newest stored id is fine (and not written back).
    const equal = createRealm({ ...snapshot, last_message_id: newest });
    expect(equal.messages.lastId).toBe(newest);
    expect(snapshotRealm(equal)).not.toHaveProperty('last_message_id');
    for (const bad of [0, -1, 1.5, '300', null]) {
      const r = parseRealm({ ...snapshot, last_message_id: bad });
      expect(r.ok ? [] : r.error.issues.map((i) => i.path)).toEqual(['last_message_id']);
    }
  });

  it('survives every streamed format (snapshotChunks → createRealmFromChunks)', () => {
    const { state, deleted } = afterDeletingNewest();
    for (const format of ['ndjson', 'ndjson1', 'json'] as const) {
      const loaded = createRealmFromChunks([...snapshotChunks(state, { format })]);
      expectSameNextId(loaded, deleted);
    }
    // The format-2 document line carries it.
    const documentLine = [...snapshotChunks(state)].join('').split('\n')[1]!;
    expect(JSON.parse(documentLine)).toMatchObject({ messages: [], last_message_id: deleted });
  });

  it('refuses a streamed document line whose last_message_id is below a message', () => {
    const { state, deleted } = afterDeletingNewest();
    const lines = [...snapshotChunks(state)].join('').split('\n');
    lines[1] = JSON.stringify({ ...JSON.parse(lines[1]!), last_message_id: 1 });
    expect(() => createRealmFromChunks([lines.join('\n')])).toThrow(
      `last_message_id: 1 is below message id ${deleted - 1}`,
    );
  });

  it('survives the simulator’s snapshot text', () => {
    const org = simulateRealm({ preset: 'small', messages: 50, seed: 4 });
    const newest = org.messages.lastId;
    const state = createRealm({ ...snapshotRealm(org), last_message_id: newest + 10 });
    const text = [...snapshotText(state, 7)].join('');
    expect(JSON.parse(text)).toEqual(snapshotRealm(state));
    expect(createRealm(JSON.parse(text)).messages.lastId).toBe(newest + 10);
  });

  it('survives binary (format 3) and JSON (format 1) checkpoints', () => {
    const { state, deleted } = afterDeletingNewest();
    expectSameNextId(openCheckpoint(sealRealmCheckpoint(3, state), 'here'), deleted);
    expectSameNextId(openCheckpoint(sealCheckpoint(3, snapshotRealm(state)), 'here'), deleted);
  });

  it('reads a format-3 checkpoint written before lastId: the largest stored id', () => {
    const { state, deleted } = afterDeletingNewest();
    const sealed = withoutLastId(sealRealmCheckpoint(3, state));
    const loaded = openCheckpoint(sealed, 'here');
    expect(loaded.messages.lastId).toBe(deleted - 1);
    expect(send(loaded, 'again').id).toBe(deleted);
  });
});

/** A format-3 checkpoint as an older version wrote it: the trailer without `lastId`. */
function withoutLastId(sealed: ReturnType<typeof sealRealmCheckpoint>) {
  const payload = sealed.payload as Uint8Array;
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const length = view.getUint32(payload.length - 8, true);
  const start = payload.length - 8 - length;
  const header = JSON.parse(new TextDecoder().decode(payload.subarray(start, start + length))) as Record<
    string,
    unknown
  >;
  expect(header['lastId']).toBeTypeOf('number');
  delete header['lastId'];
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(start + json.length + 8);
  out.set(payload.subarray(0, start));
  out.set(json, start);
  const tail = new DataView(out.buffer, start + json.length, 8);
  tail.setUint32(0, json.length, true);
  tail.setUint32(4, view.getUint32(payload.length - 4, true), true);
  return { ...sealed, payload: out, checksum: checksum(out) };
}
