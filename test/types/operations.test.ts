/**
 * Type tests: the library-mode parameter and result types inferred from each operation's specs.
 * `tsc` (npm run typecheck) checks the `@ts-expect-error` lines; vitest runs the few value checks.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  editChannel,
  getLinkifiers,
  getOwnUser,
  updateMessageFlagsForNarrow,
  updateSettings,
  type OpResult,
  type ZulipErrorBody,
  type ZulipEvent,
} from '../../src/index';
import type { DataOf, ParamsOf } from '../../src/core/operation';
import { actAs } from '../../src/testing/index';
import { openRealm } from '../../src/host/index';
import { memoryStore } from '../../src/stores/memory/index';
import { devRealm, devSnapshot } from '../support/realm';

const now = 1_795_219_200;

describe('operation types', () => {
  it('infers the parameters from the specs (decoded values)', () => {
    expectTypeOf<ParamsOf<typeof editChannel>['stream_id']>().toEqualTypeOf<number>();
    expectTypeOf<ParamsOf<typeof editChannel>['description']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ParamsOf<typeof updateMessageFlagsForNarrow>['anchor']>().toEqualTypeOf<string | number>();
    expectTypeOf<keyof ParamsOf<typeof getLinkifiers>>().toEqualTypeOf<never>();
    const realm = devRealm();
    // @ts-expect-error -- a misspelled parameter
    editChannel(realm, { userId: 2 }, { stream_id: 1, descripton: 'x' }, { now });
    // @ts-expect-error -- a parameter of the wrong type
    editChannel(realm, { userId: 2 }, { stream_id: '1' }, { now });
    // @ts-expect-error -- a required parameter left out
    editChannel(realm, { userId: 2 }, { description: 'x' }, { now });
    // @ts-expect-error -- a setting of the wrong type
    updateSettings(realm, { userId: 4 }, { enter_sends: 'yes' }, { now });
    updateSettings(realm, { userId: 4 }, { enter_sends: true }, { now });
    // Optional parameters only: `params` may be left out.
    getOwnUser(realm, { userId: 4 });
  });

  it('types the success body from the handler, and the error body as Zulip’s', () => {
    expectTypeOf<DataOf<typeof updateMessageFlagsForNarrow>['processed_count']>().toEqualTypeOf<number>();
    const r = updateMessageFlagsForNarrow(
      devRealm(),
      { userId: 4 },
      { anchor: 'oldest', num_before: 0, num_after: 10, narrow: [], op: 'add', flag: 'read' },
      { now },
    );
    if (r.body.result === 'success') {
      expectTypeOf(r.body.processed_count).toEqualTypeOf<number>();
      expectTypeOf(r.body.first_processed_id).toEqualTypeOf<number | null>();
      expect(r.body.processed_count).toBeGreaterThanOrEqual(0);
    } else {
      expectTypeOf(r.body).toEqualTypeOf<ZulipErrorBody>();
      expectTypeOf(r.body.msg).toEqualTypeOf<string>();
    }
    const me = getOwnUser(devRealm(), { userId: 4 });
    if (me.body.result === 'success') expectTypeOf(me.body.user_id).toEqualTypeOf<number>();
    const links = getLinkifiers(devRealm(), { userId: 4 });
    if (links.body.result === 'success') {
      expectTypeOf(links.body.linkifiers[0]!.pattern).toEqualTypeOf<string>();
      // @ts-expect-error -- not a key of this body
      void links.body.processed_count;
    }
  });

  it('types events as a discriminated union', () => {
    const r: OpResult = editChannel(devRealm(), { userId: 2 }, { stream_id: 1, description: 'x' }, { now });
    expectTypeOf(r.events[0]!.event).toEqualTypeOf<ZulipEvent>();
    const e = r.events[0]!.event;
    if (e.type === 'stream' && e.op === 'update') expectTypeOf(e.stream_id).toEqualTypeOf<number>();
  });

  it('types the testing session and the handle the same way', async () => {
    const hamlet = actAs(devRealm(), 4, { now });
    const r = hamlet.run('getOwnUser');
    if (r.body.result === 'success') expectTypeOf(r.body.full_name).toEqualTypeOf<string>();
    // @ts-expect-error -- misspelled parameter through the session
    hamlet.run('editChannel', { stream_id: 1, descripton: 'x' });
    // @ts-expect-error -- unknown operation name (and a run-time error)
    expect(() => hamlet.run('editChanel', { stream_id: 1 })).toThrow(/no operation/);

    const handle = await openRealm({ store: memoryStore(), snapshot: devSnapshot(), ctx: { now } });
    const h = await handle.run(
      updateMessageFlagsForNarrow,
      { userId: 4 },
      {
        anchor: 'oldest',
        num_before: 0,
        num_after: 1,
        narrow: [],
        op: 'add',
        flag: 'read',
      },
    );
    if (h.body.result === 'success') expectTypeOf(h.body.processed_count).toEqualTypeOf<number>();
    const byName = await handle.run('getOwnUser', { userId: 4 });
    if (byName.body.result === 'success') expectTypeOf(byName.body.user_id).toEqualTypeOf<number>();
    // @ts-expect-error -- wrong type through the handle
    await handle.run('editChannel', { userId: 2 }, { stream_id: 'one' }).catch(() => undefined);
    expect(byName.version).toBeGreaterThanOrEqual(0);
    await handle.close();
  });
});
