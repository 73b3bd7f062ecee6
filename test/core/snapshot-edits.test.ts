/**
 * Edit history (`MessageStore.edits`) survives every snapshot, stream and checkpoint format:
 * edited, moved and deleted messages reload with the same history, `last_edit_timestamp`,
 * `last_moved_timestamp` and GET /messages/{id}/history; files written before edits were carried
 * (no edit fields, no `edits` in a checkpoint's trailer) still load, without edits.
 */
import { describe, expect, it } from 'vitest';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { SnapshotError } from '../../src/core/snapshot/issues';
import { createRealmFromChunks, snapshotChunks } from '../../src/core/snapshot/snapshot-stream';
import type { RealmState } from '../../src/core/state';
import { checksum } from '../../src/host/checksum';
import {
  checkpointStream,
  collectCheckpoint,
  openCheckpoint,
  sealCheckpoint,
  sealRealmCheckpoint,
} from '../../src/host/checkpoint';
import { devRealm, testCtx, wire, type CastName } from '../support/realm';

const T145 = 1735698300;

function call(
  s: RealmState,
  who: CastName,
  method: 'PATCH' | 'DELETE',
  path: string,
  now: number,
  params = {},
) {
  const r = wire(s, who, method, path, params, testCtx({ now }));
  expect(r.status).toBe(200);
  return r.state;
}

/** Verona > weather (112, 145) moved to channel 2, 145 edited and its topic changed, 112 deleted. */
function editedRealm(): RealmState {
  let s = devRealm();
  s = call(s, 'iago', 'PATCH', '/messages/112', T145 + 30, { stream_id: '2', propagate_mode: 'change_all' });
  s = call(s, 'hamlet', 'PATCH', '/messages/145', T145 + 60, { content: 'Sunny, "quoted" \u{1F600}' });
  s = call(s, 'hamlet', 'PATCH', '/messages/145', T145 + 90, {
    topic: 'forecast',
    propagate_mode: 'change_one',
  });
  s = call(s, 'iago', 'DELETE', '/messages/112', T145 + 120);
  return s;
}

const edited = editedRealm();

/** What a reload must keep: the edits, and what clients read of them. */
function observed(s: RealmState) {
  return {
    edits: [...s.messages.edits],
    history: wire(s, 'othello', 'GET', '/messages/145/history').body,
    message: wire(s, 'othello', 'GET', '/messages/145').body,
    deleted: wire(s, 'othello', 'GET', '/messages/112/history').status,
  };
}

const checkpointed = (s: RealmState) => openCheckpoint(sealRealmCheckpoint(9, s), 'test');

const FORMATS: ReadonlyArray<readonly [string, (s: RealmState) => RealmState | Promise<RealmState>]> = [
  ['snapshot object', (s) => createRealm(snapshotRealm(s))],
  ['snapshot JSON text', (s) => createRealm(JSON.parse(JSON.stringify(snapshotRealm(s))) as never)],
  ['stream format 2', (s) => createRealmFromChunks(snapshotChunks(s))],
  ['stream format 1', (s) => createRealmFromChunks(snapshotChunks(s, { format: 'ndjson1' }))],
  [
    'stream json',
    (s) => createRealm(JSON.parse([...snapshotChunks(s, { format: 'json' })].join('')) as never),
  ],
  ['checkpoint format 1 (JSON)', (s) => openCheckpoint(sealCheckpoint(9, snapshotRealm(s)), 'test')],
  ['checkpoint format 3 (binary)', checkpointed],
  [
    'checkpoint format 3, streamed',
    async (s) => openCheckpoint(await collectCheckpoint(checkpointStream(9, s)), 'test'),
  ],
];

describe('edit history round-trips', () => {
  it('the fixture has edited, moved and deleted messages', () => {
    const e = edited.messages.edits.get(145)!;
    expect(e.history).toHaveLength(3);
    expect(e.last_edit_timestamp).toBe(T145 + 60);
    expect(e.last_moved_timestamp).toBe(T145 + 90);
    expect(edited.messages.edits.get(112)).toBeUndefined();
    expect(snapshotRealm(edited).messages.find((m) => m.id === 145)).toMatchObject({
      edit_history: e.history,
      last_edit_timestamp: T145 + 60,
      last_moved_timestamp: T145 + 90,
    });
  });

  for (const [name, reload] of FORMATS)
    it(`${name}: history, edit and move times and GET …/history identical after reload`, async () => {
      const again = await reload(edited);
      expect(observed(again)).toEqual(observed(edited));
      expect(snapshotRealm(again)).toEqual(snapshotRealm(edited));
      // And once more (the reloaded realm writes what it read).
      expect(observed(await reload(again))).toEqual(observed(edited));
    });

  it('the streams write the same edit fields as the snapshot, after reactions and before flags', () => {
    const json = [...snapshotChunks(edited, { format: 'json' })].join('');
    expect(json).toBe(`${JSON.stringify(snapshotRealm(edited))}\n`);
    const line = [...snapshotChunks(edited, { format: 'ndjson1' })]
      .join('')
      .split('\n')
      .find((l) => l.startsWith('{"id":145,'))!;
    expect(line).toMatch(
      /"reactions":\[.*\],"edit_history":\[.*\],"last_edit_timestamp":\d+,"last_moved_timestamp":\d+,"flags":\{/,
    );
  });
});

describe('files without edits still load', () => {
  it('a snapshot written before edits were carried loads, without edits', () => {
    const snap = snapshotRealm(edited);
    const old = JSON.parse(JSON.stringify(snap)) as { messages: Array<Record<string, unknown>> };
    for (const m of old.messages) {
      delete m['edit_history'];
      delete m['last_edit_timestamp'];
      delete m['last_moved_timestamp'];
    }
    const s = createRealm(old as never);
    expect([...s.messages.edits]).toEqual([]);
    expect(snapshotRealm(s)).toEqual(old);
    // A realm never edited writes no edit fields at all: unchanged text.
    expect(JSON.stringify(snapshotRealm(devRealm()))).not.toContain('"edit_history":');
  });

  it('a format-3 checkpoint without `edits` in its trailer loads, without edits', () => {
    const sealed = sealRealmCheckpoint(9, edited);
    const bytes = sealed.payload as Uint8Array;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const length = view.getUint32(bytes.length - 8, true);
    const start = bytes.length - 8 - length;
    const trailer = JSON.parse(new TextDecoder().decode(bytes.subarray(start, start + length))) as Record<
      string,
      unknown
    >;
    expect(trailer['edits']).toEqual([...edited.messages.edits]);
    delete trailer['edits'];
    const json = new TextEncoder().encode(JSON.stringify(trailer));
    const payload = new Uint8Array(start + json.length + 8);
    payload.set(bytes.subarray(0, start));
    payload.set(json, start);
    const tail = new DataView(payload.buffer, start + json.length, 8);
    tail.setUint32(0, json.length, true);
    tail.setUint32(4, view.getUint32(bytes.length - 4, true), true);
    const s = openCheckpoint({ ...sealed, payload, checksum: checksum(payload) }, 'test');
    expect([...s.messages.edits]).toEqual([]);
    expect(s.messages.count).toBe(edited.messages.count);
  });
});

describe('edit fields are checked', () => {
  const base = () =>
    JSON.parse(JSON.stringify(snapshotRealm(edited))) as { messages: Array<Record<string, unknown>> };
  const refused = (change: (m: Record<string, unknown>) => void) => {
    const snap = base();
    change(snap.messages.find((m) => m['id'] === 145)!);
    let error: unknown;
    try {
      createRealm(snap as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SnapshotError);
    return (error as SnapshotError).message;
  };
  it('refuses malformed histories and times, and unknown editors', () => {
    expect(refused((m) => (m['edit_history'] = 'x'))).toMatch(/edit_history/);
    expect(refused((m) => (m['edit_history'] = [{ timestamp: 1 }]))).toMatch(/user_id/);
    expect(refused((m) => (m['edit_history'] = [{ user_id: 2, timestamp: 1, bogus: 1 }]))).toMatch(/bogus/);
    expect(refused((m) => (m['edit_history'] = [{ user_id: 2, timestamp: 1, stream: 'x' }]))).toMatch(
      /stream/,
    );
    expect(refused((m) => (m['edit_history'] = [{ user_id: 999, timestamp: 1 }]))).toMatch(/no user 999/);
    expect(refused((m) => (m['last_edit_timestamp'] = -1))).toMatch(/last_edit_timestamp/);
    expect(refused((m) => (m['last_moved_timestamp'] = 'x'))).toMatch(/last_moved_timestamp/);
  });
  it('accepts a null editor (Zulip keeps entries of deleted users as null)', () => {
    const snap = base();
    snap.messages.find((m) => m['id'] === 145)!['edit_history'] = [
      { user_id: null, timestamp: 5, prev_content: 'a' },
    ];
    expect(createRealm(snap as never).messages.edits.get(145)!.history).toEqual([
      { user_id: null, timestamp: 5, prev_content: 'a' },
    ]);
  });
});
