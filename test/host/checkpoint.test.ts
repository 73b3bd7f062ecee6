import { describe, expect, it } from 'vitest';
import { openCheckpoint, sealCheckpoint, sealRealmCheckpoint } from '../../src/host/checkpoint';
import { checksum } from '../../src/host/checksum';
import { CorruptStoreError, UnsupportedFormatError } from '../../src/host/errors';
import { openRealm } from '../../src/host/realm-handle';
import { sealChange } from '../../src/host/change';
import { memoryStore } from '../../src/stores/memory/index';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { updateMessageFlagsForNarrow } from '../../src/ops/index';
import { largeSnapshot } from '../../bench/large-realm';
import { simulateRealm } from '../../src/simulate/index';
import { cast, devRealm, testCtx } from '../support/realm';
import { ALL_OPS, appendMark } from '../support/host-ops';

describe('checkpoints', () => {
  it('round-trips the dev realm through the binary format exactly', () => {
    const state = devRealm();
    const sealed = sealRealmCheckpoint(7, state);
    expect(sealed).toMatchObject({ version: 7, format: 3 });
    expect(snapshotRealm(openCheckpoint(sealed, 'here'))).toEqual(snapshotRealm(state));
  });

  it('round-trips a realm with thousands of messages, and the loaded realm behaves the same', () => {
    const state = createRealm(largeSnapshot(9000));
    const loaded = openCheckpoint(sealRealmCheckpoint(1, state), 'here');
    expect(snapshotRealm(loaded)).toEqual(snapshotRealm(state));
    const params = { anchor: 'newest', num_before: 3000, num_after: 0, narrow: [], op: 'add', flag: 'read' };
    const a = updateMessageFlagsForNarrow(state, { userId: cast.hamlet }, params, testCtx());
    const b = updateMessageFlagsForNarrow(loaded, { userId: cast.hamlet }, params, testCtx());
    expect(b.body).toEqual(a.body);
    expect(snapshotRealm(b.state)).toEqual(snapshotRealm(a.state));
  });

  it('keeps every content exactly across the encoding steps (256 messages) and chunks (2,048)', () => {
    // Lone surrogates (stored apart), astral and multi-byte text, and empty contents, placed on
    // both sides of the step and chunk boundaries.
    const special = ['\ud800', 'a\udc00b', '😀\u00e9', '', '\ufeffstart', 'x'.repeat(3000), '\u4e2d\u6587'];
    const base = largeSnapshot(5000);
    const first = base.messages!.length - 5000;
    const messages = base.messages!.map((m, i) => {
      const k = i - first;
      const near = [255, 256, 257, 511, 512, 2047, 2048, 2049, 4095, 4096].includes(k);
      return near || k % 97 === 0 ? { ...m, content: special[k % special.length]! } : m;
    });
    const state = createRealm({ ...base, messages });
    const loaded = openCheckpoint(sealRealmCheckpoint(1, state), 'here');
    expect(snapshotRealm(loaded)).toEqual(snapshotRealm(state));
    expect(snapshotRealm(loaded).messages.map((m) => m.content)).toEqual(messages.map((m) => m.content));
  });

  it('round-trips a simulated organization (direct and group messages, stars, mutes) exactly', () => {
    const state = simulateRealm({ preset: 'small', seed: 3 });
    const loaded = openCheckpoint(sealRealmCheckpoint(1, state), 'here');
    expect(snapshotRealm(loaded)).toEqual(snapshotRealm(state));
  });

  it('is much smaller than the JSON snapshot', () => {
    const state = createRealm(largeSnapshot(20000));
    const binary = sealRealmCheckpoint(1, state).payload.length;
    const json = sealCheckpoint(1, snapshotRealm(state)).payload.length;
    expect(binary).toBeLessThan(json / 2);
  });

  it('still loads a store whose checkpoint an older version wrote as JSON (format 1)', async () => {
    const store = memoryStore();
    await store.writeCheckpoint(sealCheckpoint(0, snapshotRealm(devRealm())));
    await store.append(
      sealChange(
        {
          version: 1,
          input: {
            kind: 'call',
            op: appendMark.def.name,
            actor: { userId: cast.hamlet },
            params: { mark: '+' },
          },
          now: 1795219200,
          random: '',
          status: 200,
        },
        0,
      ),
      0,
    );
    const handle = await openRealm({ store, operations: ALL_OPS });
    expect(handle.version).toBe(1);
    expect(handle.state.users.get(cast.hamlet)?.full_name).toMatch(/\+$/);
    // Its next checkpoint is written in the current format.
    await handle.checkpoint();
    expect(store.records.checkpoints.at(-1)).toMatchObject({ version: 1, format: 3 });
  });

  it('refuses damaged, truncated or unknown checkpoints, naming them', () => {
    const sealed = sealRealmCheckpoint(3, devRealm());
    const bytes = sealed.payload as Uint8Array;
    const flipped = bytes.slice();
    flipped[1000] = flipped[1000]! ^ 0xff;
    expect(() => openCheckpoint({ ...sealed, payload: flipped }, 'cp 3')).toThrow(
      new CorruptStoreError('cp 3', 'checksum mismatch (the checkpoint is damaged or truncated)'),
    );
    const short = bytes.slice(0, bytes.length - 10);
    expect(() => openCheckpoint({ ...sealed, payload: short, checksum: checksum(short) }, 'cp 3')).toThrow(
      /^Corrupt realm store at cp 3: the snapshot is invalid \(/,
    );
    expect(() => openCheckpoint({ ...sealed, format: 4 }, 'cp 3')).toThrow(UnsupportedFormatError);
  });
});
