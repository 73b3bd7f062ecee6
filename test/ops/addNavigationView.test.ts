import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addNavigationView } from '../../src/ops/personal/addNavigationView';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, cast, devRealm, testCtx, wire } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'add-navigation-view';
const state = devRealm();

function ok(r: OpResult): void {
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
}

function refused(r: OpResult, before: RealmState, msg: string, code?: string, extra?: object): void {
  expectRefused(OP, r, before, msg, code, extra);
}

const viewsOf = (s: RealmState, id: number) => s.navigationViews.get(id) ?? [];

describe('addNavigationView', () => {
  it('adds a built-in view with a null name and tells only the caller', () => {
    const r = addNavigationView(state, as('cordelia'), { fragment: 'recent', is_pinned: true }, testCtx());
    ok(r);
    expect(r.body).toEqual({ result: 'success', msg: '' });
    expect(viewsOf(r.state, cast.cordelia)).toEqual([
      { user_id: cast.cordelia, fragment: 'recent', is_pinned: true, name: null },
    ]);
    expect(r.events).toEqual([
      {
        event: {
          type: 'navigation_view',
          op: 'add',
          navigation_view: { fragment: 'recent', is_pinned: true, name: null },
        },
        users: [cast.cordelia],
      },
    ]);
    expect(r.effects).toEqual([]);
    // Other users' views are untouched; the old state is unchanged.
    expect(viewsOf(r.state, cast.hamlet)).toBe(viewsOf(state, cast.hamlet));
    expect(viewsOf(state, cast.cordelia)).toEqual([]);
  });

  it('adds a custom view after the existing ones (scenario: narrow/view with a name)', () => {
    const r = wire(state, 'hamlet', 'POST', '/navigation_views', {
      fragment: 'narrow/view',
      is_pinned: 'false',
      name: 'foo',
    });
    ok(r);
    expect(viewsOf(r.state, cast.hamlet).map((v) => [v.fragment, v.is_pinned, v.name])).toEqual([
      ['inbox', true, null],
      ['narrow/channel/2-Denmark', false, 'Denmark feed'],
      ['narrow/view', false, 'foo'],
    ]);
    expect(r.events).toEqual([
      {
        event: {
          type: 'navigation_view',
          op: 'add',
          navigation_view: { fragment: 'narrow/view', is_pinned: false, name: 'foo' },
        },
        users: [cast.hamlet],
      },
    ]);
  });

  it('stores the stripped fragment and name', () => {
    const r = wire(state, 'hamlet', 'POST', '/navigation_views', {
      fragment: '  narrow/x \n',
      is_pinned: 'true',
      name: '\u00a0Mine\u2003',
    });
    ok(r);
    expect(viewsOf(r.state, cast.hamlet).at(-1)).toEqual({
      user_id: cast.hamlet,
      fragment: 'narrow/x',
      is_pinned: true,
      name: 'Mine',
    });
  });

  it('lets guests and bots keep views of their own', () => {
    for (const who of ['polonius', 'defaultBot'] as const) {
      const r = wire(state, who, 'POST', '/navigation_views', { fragment: 'inbox', is_pinned: 'true' });
      ok(r);
      expect(r.events[0]!.users).toEqual([cast[who]]);
    }
  });

  it('accepts every built-in fragment without a name (reminders included)', () => {
    for (const fragment of [
      'inbox',
      'recent',
      'feed',
      'drafts',
      'narrow/has/reaction/sender/me',
      'narrow/is/mentioned',
      'narrow/is/starred',
      'scheduled',
      'reminders',
    ]) {
      ok(addNavigationView(state, as('othello'), { fragment, is_pinned: false }));
    }
  });

  it('reports unknown parameters as ignored', () => {
    const r = wire(state, 'hamlet', 'POST', '/navigation_views', {
      fragment: 'feed',
      is_pinned: 'true',
      color: 'red',
    });
    ok(r);
    expect(r.body).toEqual({ result: 'success', msg: '', ignored_parameters_unsupported: ['color'] });
  });

  it('refuses a name for a built-in view (scenario: recent then recent with name foo)', () => {
    const first = wire(state, 'hamlet', 'POST', '/navigation_views', {
      fragment: 'recent',
      is_pinned: 'true',
    });
    ok(first);
    const r = wire(first.state, 'hamlet', 'POST', '/navigation_views', {
      fragment: 'recent',
      is_pinned: 'true',
      name: 'foo',
    });
    refused(r, first.state, 'Built-in views cannot have a custom name.');
  });

  it('strips the fragment before recognising a built-in view (scenario: "  inbox  ")', () => {
    const r = wire(state, 'hamlet', 'POST', '/navigation_views', {
      fragment: '  inbox  ',
      is_pinned: 'true',
      name: 'Mine',
    });
    refused(r, state, 'Built-in views cannot have a custom name.');
  });

  it('matches built-in fragments case-sensitively', () => {
    const r = addNavigationView(state, as('hamlet'), { fragment: 'Inbox', is_pinned: true });
    refused(r, state, 'Custom views must have a valid name.');
  });

  it('refuses a custom view without a name (scenario: narrow/view)', () => {
    refused(
      wire(state, 'hamlet', 'POST', '/navigation_views', { fragment: 'narrow/view', is_pinned: 'true' }),
      state,
      'Custom views must have a valid name.',
    );
    refused(
      addNavigationView(state, as('hamlet'), { fragment: 'narrow/view', is_pinned: true, name: null }),
      state,
      'Custom views must have a valid name.',
    );
  });

  it('refuses a fragment the caller already has (scenario: recent twice)', () => {
    refused(
      addNavigationView(state, as('hamlet'), { fragment: 'inbox', is_pinned: false }),
      state,
      'Navigation view already exists.',
    );
    refused(
      addNavigationView(state, as('hamlet'), {
        fragment: 'narrow/channel/2-Denmark',
        is_pinned: true,
        name: 'Other',
      }),
      state,
      'Navigation view already exists.',
    );
  });

  it('refuses a name the caller already uses (scenario: narorw/is/attachment named foo)', () => {
    const first = addNavigationView(state, as('hamlet'), {
      fragment: 'narrow/view',
      is_pinned: true,
      name: 'foo',
    });
    ok(first);
    const r = wire(first.state, 'hamlet', 'POST', '/navigation_views', {
      fragment: 'narorw/is/attachment',
      is_pinned: 'true',
      name: 'foo',
    });
    refused(r, first.state, 'Navigation view already exists.');
  });

  it("ignores other users' views when checking uniqueness", () => {
    const r = addNavigationView(state, as('cordelia'), {
      fragment: 'narrow/channel/2-Denmark',
      is_pinned: true,
      name: 'Denmark feed',
    });
    ok(r);
  });

  it('puts parameter errors first (scenario: blank fragment with a name)', () => {
    refused(
      wire(state, 'hamlet', 'POST', '/navigation_views', { fragment: '', is_pinned: 'true', name: 'foo' }),
      state,
      'fragment cannot be blank',
    );
    refused(
      wire(state, 'hamlet', 'POST', '/navigation_views', { fragment: ' \t ', is_pinned: 'nope' }),
      state,
      'fragment cannot be blank',
    );
  });

  it('checks parameters in declaration order: fragment, is_pinned, name', () => {
    refused(
      wire(state, 'hamlet', 'POST', '/navigation_views', {}),
      state,
      "Missing 'fragment' argument",
      'REQUEST_VARIABLE_MISSING',
      {
        var_name: 'fragment',
      },
    );
    refused(
      wire(state, 'hamlet', 'POST', '/navigation_views', { fragment: 'inbox', name: '' }),
      state,
      "Missing 'is_pinned' argument",
      'REQUEST_VARIABLE_MISSING',
      {
        var_name: 'is_pinned',
      },
    );
    refused(
      wire(state, 'hamlet', 'POST', '/navigation_views', { fragment: 'inbox', is_pinned: 'yes' }),
      state,
      'is_pinned is not valid JSON',
    );
    refused(
      wire(state, 'hamlet', 'POST', '/navigation_views', { fragment: 'inbox', is_pinned: '' }),
      state,
      'is_pinned is not valid JSON',
    );
    // Scenario: is_pinned=1 is JSON but not a boolean.
    refused(
      wire(state, 'hamlet', 'POST', '/navigation_views', { fragment: 'inbox', is_pinned: '1' }),
      state,
      'is_pinned is not a boolean',
    );
    // Scenario: a blank name.
    refused(
      wire(state, 'hamlet', 'POST', '/navigation_views', {
        fragment: 'narrow/x',
        is_pinned: 'true',
        name: '   ',
      }),
      state,
      'name cannot be blank',
    );
  });

  it('types decoded parameters strictly', () => {
    refused(
      loose(addNavigationView)(state, as('hamlet'), { fragment: 5, is_pinned: true }),
      state,
      'fragment is not a string',
    );
    refused(
      loose(addNavigationView)(state, as('hamlet'), { fragment: 'x', is_pinned: 'true' }),
      state,
      'is_pinned is not a boolean',
    );
    refused(
      loose(addNavigationView)(state, as('hamlet'), { fragment: 'x', is_pinned: true, name: 3 }),
      state,
      'name is not a string',
    );
  });

  it('refuses anonymous and deactivated callers', () => {
    const anon = addNavigationView(state, { anonymous: true }, { fragment: 'inbox', is_pinned: true });
    expect(anon.status).toBe(401);
    expect(anon.state).toBe(state);
    const ex = addNavigationView(state, as('exEmployee'), { fragment: 'inbox', is_pinned: true });
    expect(ex.status).toBe(401);
    expect(ex.body).toEqual({ result: 'error', msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });
    expect(ex.state).toBe(state);
  });

  it("gives each caller events that rebuild their client's list of views (property)", () => {
    type View = { fragment: string; is_pinned: boolean; name: string | null };
    const clientView = (s: RealmState, id: number): View[] =>
      viewsOf(s, id).map(({ fragment, is_pinned, name }) => ({ fragment, is_pinned, name }));
    const reduce = (views: View[], event: OpResult['events'][number]['event']): View[] => {
      if (event.type !== 'navigation_view') return views;
      switch (event.op) {
        case 'add':
          return [...views, event['navigation_view'] as View];
        case 'update':
        case 'remove':
          throw new Error('not sent by addNavigationView');
        default: {
          const never: never = event;
          return never;
        }
      }
    };
    const request = fc.record({
      who: fc.constantFrom('hamlet', 'cordelia', 'polonius', 'defaultBot'),
      fragment: fc.constantFrom('inbox', 'recent', 'narrow/a', 'narrow/b', ' narrow/c '),
      is_pinned: fc.boolean(),
      name: fc.option(fc.constantFrom('A', 'B', ' A ', 'Denmark feed'), { nil: undefined }),
    });
    fc.assert(
      fc.property(fc.array(request, { maxLength: 8 }), (requests) => {
        let s = state;
        const clients = new Map<number, View[]>(
          [cast.hamlet, cast.cordelia, cast.polonius, cast.defaultBot].map((id) => [id, clientView(s, id)]),
        );
        for (const { who, ...params } of requests) {
          const r = addNavigationView(s, as(who), params);
          for (const { event, users } of r.events)
            for (const u of users) clients.set(u, reduce(clients.get(u)!, event));
          s = r.state;
        }
        for (const [id, views] of clients) expect(views).toEqual(clientView(s, id));
      }),
      { numRuns: 100 },
    );
  });

  it('is total and pure on failure (library)', () => {
    const shaped = [
      fc.constantFrom('inbox', 'recent', 'narrow/x', '  ', ''),
      fc.boolean(),
      fc.constant(null),
    ];
    checkLibraryLaws(addNavigationView, state, arbParams(['fragment', 'is_pinned', 'name'], shaped));
  });

  it('is total and pure on failure (wire)', () => {
    const shaped = [fc.constantFrom('inbox', 'recent', 'narrow/x', 'Denmark feed', 'true', 'false')];
    checkWireLaws(addNavigationView, state, arbWireParams(['fragment', 'is_pinned', 'name'], shaped));
  });
});
