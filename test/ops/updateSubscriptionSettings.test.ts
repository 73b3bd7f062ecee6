import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { updateSubscriptionSettings } from '../../src/ops/channels/updateSubscriptionSettings';
import type { Actor } from '../../src/core/operation';
import type { OpResult } from '../../src/core/result';
import { edit, editRecord } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { putChannel, putSubscription } from '../../src/core/state-edit';
import type { Subscription } from '../../src/core/model/records';
import { as, cast, devRealm, testCtx, wire, type CastName } from '../support/realm';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { loose } from '../support/loose';

const OP = 'update-subscription-settings';
const PATH = '/users/me/subscriptions/properties';
const VERONA = 1;
const DENMARK = 2;
const ROME = 4;
const SECRETS = 7;
const OLD_ANNOUNCEMENTS = 8;
/** A public channel hamlet is not subscribed to (the scenarios' "Denmark", which hamlet is subscribed to in the fixture). */
const NEWCOMERS = 10;

function check(r: OpResult): OpResult {
  expectValidResponse(OP, r.status, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  return r;
}
const call = (state: RealmState, who: CastName, data: unknown): OpResult =>
  check(loose(updateSubscriptionSettings)(state, as(who), { subscription_data: data }, testCtx()));
const post = (
  state: RealmState,
  who: CastName,
  data: unknown,
  extra: Record<string, string> = {},
): OpResult => check(wire(state, who, 'POST', PATH, { subscription_data: JSON.stringify(data), ...extra }));

function expectError(r: OpResult, state: RealmState, msg: string): void {
  expect(r.status).toBe(400);
  expect(r.body).toEqual({ result: 'error', msg, code: 'BAD_REQUEST' });
  expect(r.state).toBe(state);
  expect(r.events).toEqual([]);
  expect(r.effects).toEqual([]);
}
const ok = { result: 'success', msg: '' };
const sub = (r: OpResult | RealmState, streamId: number, userId: number): Subscription =>
  ('state' in r ? r.state : r).subscriptions.get(streamId)!.get(userId)!;
const update = (streamId: number, property: string, value: unknown) => ({
  type: 'subscription',
  op: 'update',
  property,
  value,
  stream_id: streamId,
});
function withSub(
  state: RealmState,
  streamId: number,
  userId: number,
  recipe: (s: { -readonly [K in keyof Subscription]: Subscription[K] }) => void,
): RealmState {
  const next = editRecord(sub(state, streamId, userId), recipe);
  return edit(state, (d) => putSubscription(d, next));
}

describe('updateSubscriptionSettings', () => {
  const state = devRealm();

  it('sets a color and tells only the caller (scenario)', () => {
    const r = post(state, 'hamlet', [{ property: 'color', stream_id: VERONA, value: '#ffffff' }]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(ok);
    expect(sub(r, VERONA, cast.hamlet).color).toBe('#ffffff');
    expect(sub(r, VERONA, cast.iago)).toBe(sub(state, VERONA, cast.iago));
    expect(r.events).toEqual([{ event: update(VERONA, 'color', '#ffffff'), users: [cast.hamlet] }]);
  });

  it('accepts 3 to 6 hex digits and refuses anything else', () => {
    for (const color of ['#abc', '#abcd', '#ABCDE', '#a1b2c3']) {
      expect(
        sub(
          call(state, 'hamlet', [{ stream_id: VERONA, property: 'color', value: color }]),
          VERONA,
          cast.hamlet,
        ).color,
      ).toBe(color);
    }
    for (const color of ['#ab', '#abcdefa', 'ffffff', '#ggg', '', false, true]) {
      expectError(
        call(state, 'hamlet', [{ stream_id: VERONA, property: 'color', value: color }]),
        state,
        'Invalid subscription_data[0]: Value error, color is not a valid hex color code',
      );
    }
    expectError(
      call(state, 'hamlet', [
        { stream_id: VERONA, property: 'pin_to_top', value: true },
        { stream_id: VERONA, property: 'color', value: 'red' },
      ]),
      state,
      'Invalid subscription_data[1]: Value error, color is not a valid hex color code',
    );
  });

  it('reports a missing stream_id (scenario) and a missing value (scenario)', () => {
    expectError(
      post(state, 'hamlet', [{ property: 'color', value: '#ffffff' }]),
      state,
      'subscription_data[0]["stream_id"] field is missing: Field required',
    );
    expectError(
      post(state, 'hamlet', [{ property: 'color', stream_id: VERONA }]),
      state,
      'subscription_data[0]["value"] field is missing: Field required',
    );
    expectError(
      post(state, 'hamlet', [{ stream_id: VERONA, value: true }]),
      state,
      'subscription_data[0]["property"] field is missing: Field required',
    );
  });

  it('reports the wrong shapes', () => {
    const r = check(wire(state, 'hamlet', 'POST', PATH, {}));
    expect(r.body).toEqual({
      result: 'error',
      msg: "Missing 'subscription_data' argument",
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'subscription_data',
    });
    expect(r.state).toBe(state);
    expectError(
      check(wire(state, 'hamlet', 'POST', PATH, { subscription_data: 'nope' })),
      state,
      'subscription_data is not valid JSON',
    );
    expectError(post(state, 'hamlet', { stream_id: VERONA }), state, 'subscription_data is not a list');
    expectError(post(state, 'hamlet', [5]), state, 'subscription_data[0] is not a dict');
    expectError(
      post(state, 'hamlet', [{ stream_id: '1', property: 'pin_to_top', value: true }]),
      state,
      'subscription_data[0]["stream_id"] is not an integer',
    );
    expectError(
      post(state, 'hamlet', [{ stream_id: VERONA, property: 5, value: true }]),
      state,
      'subscription_data[0]["property"] is not a string',
    );
  });

  it('reports a non-boolean value for a boolean property unwrapped (scenario)', () => {
    expectError(
      post(state, 'hamlet', [{ property: 'is_muted', stream_id: VERONA, value: 'bad' }]),
      state,
      'is_muted is not a boolean',
    );
  });

  it('reports an unknown property', () => {
    expectError(
      post(state, 'hamlet', [{ property: 'notifications', stream_id: VERONA, value: true }]),
      state,
      'Unknown subscription property: notifications',
    );
  });

  it('validates every item before looking at any channel', () => {
    expectError(
      post(state, 'hamlet', [
        { property: 'pin_to_top', stream_id: 1000, value: true },
        { property: 'is_muted', stream_id: VERONA, value: 'bad' },
      ]),
      state,
      'is_muted is not a boolean',
    );
  });

  it('answers Invalid channel ID for an unknown channel (scenario), an archived one (scenario) and one without content access', () => {
    expectError(
      post(state, 'hamlet', [{ property: 'is_muted', stream_id: 1000, value: false }]),
      state,
      'Invalid channel ID',
    );
    expectError(
      post(state, 'hamlet', [{ property: 'pin_to_top', stream_id: OLD_ANNOUNCEMENTS, value: true }]),
      state,
      'Invalid channel ID',
    );
    expectError(
      post(state, 'hamlet', [{ property: 'pin_to_top', stream_id: SECRETS, value: true }]),
      state,
      'Invalid channel ID',
    );
  });

  it('refuses a channel the caller is not subscribed to, or left', () => {
    expectError(
      post(state, 'hamlet', [{ property: 'pin_to_top', stream_id: NEWCOMERS, value: true }]),
      state,
      `Not subscribed to channel ID ${NEWCOMERS}`,
    );
    expectError(
      post(state, 'cordelia', [{ property: 'pin_to_top', stream_id: ROME, value: true }]),
      state,
      `Not subscribed to channel ID ${ROME}`,
    );
  });

  it('sends the legacy in_home_view event before is_muted (scenario)', () => {
    const r = post(state, 'hamlet', [{ property: 'is_muted', stream_id: VERONA, value: true }]);
    expect(r.body).toEqual(ok);
    expect(sub(r, VERONA, cast.hamlet).is_muted).toBe(true);
    expect(r.events).toEqual([
      { event: update(VERONA, 'in_home_view', false), users: [cast.hamlet] },
      { event: update(VERONA, 'is_muted', true), users: [cast.hamlet] },
    ]);
  });

  it('stores in_home_view as the inverse of is_muted (scenario)', () => {
    const muted = withSub(state, VERONA, cast.hamlet, (s) => {
      s.is_muted = true;
    });
    const r = post(muted, 'hamlet', [{ property: 'in_home_view', stream_id: VERONA, value: true }]);
    expect(sub(r, VERONA, cast.hamlet).is_muted).toBe(false);
    expect(r.events).toEqual([
      { event: update(VERONA, 'in_home_view', true), users: [cast.hamlet] },
      { event: update(VERONA, 'is_muted', false), users: [cast.hamlet] },
    ]);
  });

  it('writes and announces even an unchanged value', () => {
    const r = post(state, 'hamlet', [
      { property: 'pin_to_top', stream_id: VERONA, value: sub(state, VERONA, cast.hamlet).pin_to_top },
    ]);
    expect(r.events).toHaveLength(1);
  });

  it('sets every notification property', () => {
    for (const property of [
      'desktop_notifications',
      'audible_notifications',
      'push_notifications',
      'email_notifications',
      'wildcard_mentions_notify',
      'pin_to_top',
    ] as const) {
      const r = post(state, 'hamlet', [{ property, stream_id: DENMARK, value: true }]);
      expect(sub(r, DENMARK, cast.hamlet)[property]).toBe(true);
      expect(r.events).toEqual([{ event: update(DENMARK, property, true), users: [cast.hamlet] }]);
    }
  });

  it('applies items in list order, the last write winning', () => {
    const r = post(state, 'hamlet', [
      { property: 'color', stream_id: VERONA, value: '#111111' },
      { property: 'pin_to_top', stream_id: DENMARK, value: true },
      { property: 'color', stream_id: VERONA, value: '#222222' },
    ]);
    expect(sub(r, VERONA, cast.hamlet).color).toBe('#222222');
    expect(sub(r, DENMARK, cast.hamlet).pin_to_top).toBe(true);
    expect(r.events.map((e) => e.event)).toEqual([
      update(VERONA, 'color', '#111111'),
      update(DENMARK, 'pin_to_top', true),
      update(VERONA, 'color', '#222222'),
    ]);
  });

  it('applies nothing when a later item fails (scenario, deliberate difference: Zulip keeps the earlier items)', () => {
    const r = post(state, 'hamlet', [
      { property: 'pin_to_top', stream_id: VERONA, value: true },
      { property: 'pin_to_top', stream_id: NEWCOMERS, value: true },
    ]);
    expectError(r, state, `Not subscribed to channel ID ${NEWCOMERS}`);
  });

  it('lists unknown parameters as ignored instead of echoing the data', () => {
    const r = post(state, 'hamlet', [{ property: 'pin_to_top', stream_id: VERONA, value: true }], {
      zzz: '1',
      abc: '2',
    });
    expect(r.body).toEqual({ ...ok, ignored_parameters_unsupported: ['abc', 'zzz'] });
  });

  it('works for guests, bots and private channels the caller is subscribed to', () => {
    expect(call(state, 'polonius', [{ stream_id: VERONA, property: 'pin_to_top', value: true }]).status).toBe(
      200,
    );
    expect(call(state, 'defaultBot', [{ stream_id: 6, property: 'is_muted', value: true }]).status).toBe(200);
    expect(call(state, 'cordelia', [{ stream_id: SECRETS, property: 'color', value: '#000' }]).status).toBe(
      200,
    );
  });

  it('refuses an archived channel even though the caller is still subscribed', () => {
    const archived = edit(state, (d) => putChannel(d, { ...state.channels.get(VERONA)!, is_archived: true }));
    expectError(
      call(archived, 'hamlet', [{ property: 'pin_to_top', stream_id: VERONA, value: true }]),
      archived,
      'Invalid channel ID',
    );
  });

  it('accepts an empty list', () => {
    const r = post(state, 'hamlet', []);
    expect(r.body).toEqual(ok);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
  });

  describe('properties', () => {
    const actors: Actor[] = [...Object.values(cast).map((userId) => ({ userId })), { anonymous: true }];
    const item = fc.record(
      {
        stream_id: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.anything()),
        property: fc.oneof(
          fc.constantFrom(
            'color',
            'is_muted',
            'in_home_view',
            'pin_to_top',
            'desktop_notifications',
            'push_notifications',
            'bogus',
          ),
          fc.anything(),
        ),
        value: fc.oneof(fc.boolean(), fc.constantFrom('#fff', '#12345', 'x'), fc.anything()),
      },
      { requiredKeys: [] },
    );

    it('never throws; errors keep the state and send nothing; events only go to the caller', () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...actors),
          fc.oneof(fc.array(item, { maxLength: 4 }), fc.anything()),
          (actor, data) => {
            const r = loose(updateSubscriptionSettings)(state, actor, { subscription_data: data }, testCtx());
            if (r.status !== 200) {
              expect(r.state).toBe(state);
              expect(r.events).toEqual([]);
            } else {
              for (const e of r.events) expect(e.users).toEqual(['userId' in actor ? actor.userId : -1]);
            }
          },
        ),
        { numRuns: 200 },
      );
    });

    it('never throws on arbitrary wire input', () => {
      fc.assert(
        fc.property(fc.constantFrom<CastName>('hamlet', 'polonius', 'iago'), fc.string(), (who, raw) => {
          const r = wire(state, who, 'POST', PATH, { subscription_data: raw });
          if (r.status !== 200) expect(r.state).toBe(state);
        }),
        { numRuns: 100 },
      );
    });
  });
});
