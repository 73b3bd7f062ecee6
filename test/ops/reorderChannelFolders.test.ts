import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reorderChannelFolders } from '../../src/ops/channels/reorderChannelFolders';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, devRealm, devSnapshot, testCtx, wire, type CastName } from '../support/realm';

const OP = 'patch-channel-folders';
const state = devRealm();
/** Every active account of the dev realm (ex-employee 14 is deactivated). */
const ACTIVE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16];

function ok(r: OpResult): void {
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
}

function refused(r: OpResult, before: RealmState, msg: string, code?: string, extra?: object): void {
  expectRefused(OP, r, before, msg, code, extra);
}

const patch = (s: RealmState, params: Record<string, string>, who: CastName = 'iago') =>
  wire(s, who, 'PATCH', '/channel_folders', params, testCtx());

const orders = (s: RealmState) => [...s.channelFolders.values()].map((f) => [f.id, f.order]);

describe('reorderChannelFolders', () => {
  it('sets each folder order to its position and tells every active user, bots included', () => {
    const r = patch(state, { order: '[3, 1, 2]' });
    ok(r);
    expect(r.body).toEqual({ result: 'success', msg: '' });
    expect(orders(r.state)).toEqual([
      [1, 1],
      [2, 2],
      [3, 0],
    ]);
    expect(r.events).toEqual([
      { event: { type: 'channel_folder', op: 'reorder', order: [3, 1, 2] }, users: ACTIVE },
    ]);
    expect(r.effects).toEqual([]);
    // The input state is untouched; other folder fields are kept.
    expect(orders(state)).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
    ]);
    expect(r.state.channelFolders.get(3)).toEqual({ ...state.channelFolders.get(3), order: 0 });
  });

  it('accepts the library call with decoded params (owners pass the admin check)', () => {
    const r = reorderChannelFolders(state, as('desdemona'), { order: [2, 3, 1] }, testCtx());
    ok(r);
    expect(orders(r.state)).toEqual([
      [1, 2],
      [2, 0],
      [3, 1],
    ]);
    expect(r.events[0]!.event).toEqual({ type: 'channel_folder', op: 'reorder', order: [2, 3, 1] });
  });

  it.each<CastName>(['shiva', 'hamlet', 'polonius', 'defaultBot'])(
    'refuses %s: not an administrator (before parsing)',
    (who) => {
      refused(
        patch(state, { order: 'not json' }, who),
        state,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    },
  );

  it('refuses non-admin (scenario: Non-admin)', () => {
    refused(
      patch(state, { order: '[3, 2, 1]' }, 'hamlet'),
      state,
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
  });

  it('refuses a list of unknown ids only (scenario: Unknown ids only)', () => {
    refused(patch(state, { order: '[100, 200, 300]' }), state, 'Invalid order mapping.');
  });

  it('refuses a list missing a folder (scenario: A folder missing from the list)', () => {
    refused(patch(state, { order: '[1, 2]' }), state, 'Invalid order mapping.');
  });

  it('requires archived folders too (scenario: Archived folders must be listed)', () => {
    expect(state.channelFolders.get(3)!.is_archived).toBe(true);
    refused(patch(state, { order: '[1, 2]' }), state, 'Invalid order mapping.');
    refused(patch(state, { order: '[2, 1]' }), state, 'Invalid order mapping.');
  });

  it('lets a duplicated id take its last position (scenario: Duplicate id: last position wins)', () => {
    const r = patch(state, { order: '[1, 2, 3, 1]' });
    ok(r);
    expect(orders(r.state)).toEqual([
      [1, 3],
      [2, 1],
      [3, 2],
    ]);
    expect(r.events).toEqual([
      { event: { type: 'channel_folder', op: 'reorder', order: [1, 2, 3, 1] }, users: ACTIVE },
    ]);
  });

  it('ignores ids that are not folders', () => {
    const r = patch(state, { order: '[99, 2, 1, 3]' });
    ok(r);
    expect(orders(r.state)).toEqual([
      [1, 2],
      [2, 1],
      [3, 3],
    ]);
  });

  it('keeps the same state object when nothing moves, but still sends the event', () => {
    const r = patch(state, { order: '[1, 2, 3]' });
    ok(r);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([
      { event: { type: 'channel_folder', op: 'reorder', order: [1, 2, 3] }, users: ACTIVE },
    ]);
  });

  it('accepts any list when the realm has no folders (scenario: Realm with no folders accepts any list)', () => {
    const snap = devSnapshot();
    snap.channel_folders = [];
    snap.channels = snap.channels.map(({ folder_id: _f, ...c }) => c);
    const empty = createRealm(snap, { random: seededRandom(1) });
    const r = patch(empty, { order: '[1, 2]' });
    ok(r);
    expect(r.state).toBe(empty);
    expect(r.events).toEqual([
      { event: { type: 'channel_folder', op: 'reorder', order: [1, 2] }, users: ACTIVE },
    ]);
    ok(patch(empty, { order: '[]' }));
  });

  it('requires order (scenario: Missing order)', () => {
    refused(patch(state, {}), state, "Missing 'order' argument", 'REQUEST_VARIABLE_MISSING', {
      var_name: 'order',
    });
  });

  it.each([
    ['"1,2,3"', 'order is not a list'],
    ['{"1": 0}', 'order is not a list'],
    ['[1, "2", 3]', 'order[1] is not an integer'],
    ['[1, 2.5, 3]', 'order[1] is not an integer'],
    ['[true]', 'order[0] is not an integer'],
    ['[null]', 'order[0] is not an integer'],
    ['', 'order is not valid JSON'],
    ['[1,', 'order is not valid JSON'],
  ])('refuses order=%s', (order, msg) => {
    refused(patch(state, { order }), state, msg);
  });

  it('reports unknown parameters as ignored', () => {
    const r = patch(state, { order: '[3, 2, 1]', folder: 'x', a: '1' });
    ok(r);
    expect(r.body).toEqual({ result: 'success', msg: '', ignored_parameters_unsupported: ['a', 'folder'] });
  });

  it('refuses anonymous callers', () => {
    const r = reorderChannelFolders(state, { anonymous: true }, { order: [1, 2, 3] });
    expect(r.status).toBe(401);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
  });

  it('is total and pure on failure (library)', () => {
    const shaped = [fc.array(fc.integer({ min: -1, max: 5 }), { maxLength: 6 }), fc.constant([3, 2, 1])];
    checkLibraryLaws(reorderChannelFolders, state, arbParams(['order'], shaped));
  });

  it('is total and pure on failure (wire)', () => {
    const shaped = [
      fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 5 }).map((xs) => JSON.stringify(xs)),
    ];
    checkWireLaws(reorderChannelFolders, state, arbWireParams(['order'], shaped));
  });
});
