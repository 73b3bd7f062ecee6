import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { renderMarkdown } from '../../src/core/markdown';
import type { OpResult } from '../../src/core/result';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { updateProfileData } from '../../src/ops/users/updateProfileData';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, wire, type CastName } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'update-profile-data';
const state = devRealm();
const ACTIVE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16];
// Field ids of the dev realm.
const F = {
  phone: 1,
  bio: 2,
  food: 3,
  editor: 4,
  birthday: 5,
  website: 6,
  mentor: 7,
  pronouns: 8,
  github: 9,
} as const;

const patch = (s: RealmState, who: CastName, data: unknown) =>
  wire(s, who, 'PATCH', '/users/me/profile_data', {
    data: typeof data === 'string' ? data : JSON.stringify(data),
  });

function expectError(
  r: OpResult,
  before: RealmState,
  msg: string,
  code = 'BAD_REQUEST',
  extra: Record<string, unknown> = {},
): void {
  expect(r.body).toEqual({ result: 'error', msg, code, ...extra });
  expect(r.status).toBe(400);
  expectValidResponse(OP, 400, r.body);
  expect(r.state).toBe(before);
  expect(r.events).toEqual([]);
}
const fails = (who: CastName, data: unknown, msg: string) => expectError(patch(state, who, data), state, msg);

function ok(r: OpResult): OpResult {
  expect(r.body).toEqual({ result: 'success', msg: '' });
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
  return r;
}
const profile = (s: RealmState, who: CastName) => s.users.get(cast[who])!.profile_data;
const update = (userId: number, custom_profile_field: Record<string, unknown>) => ({
  type: 'realm_user',
  op: 'update',
  person: { user_id: userId, custom_profile_field },
});

describe('updateProfileData', () => {
  it('stores a text value and announces it rendered (scenario: Markdown rendering)', () => {
    const r = ok(patch(state, 'hamlet', [{ id: F.phone, value: '*short* text' }]));
    expect(profile(r.state, 'hamlet')[String(F.phone)]).toBe('*short* text');
    expect(r.state.users.get(cast.cordelia)).toBe(state.users.get(cast.cordelia));
    expect(r.events).toEqual([
      {
        event: update(4, { id: 1, value: '*short* text', rendered_value: '<p><em>short</em> text</p>' }),
        users: ACTIVE,
      },
    ]);
  });

  it('renders long text with bold italics', () => {
    const r = ok(patch(state, 'cordelia', [{ id: F.bio, value: '***beware*** of jealousy...' }]));
    expect(r.events[0]!.event).toEqual(
      update(5, {
        id: 2,
        value: '***beware*** of jealousy...',
        rendered_value: '<p><strong><em>beware</em></strong> of jealousy...</p>',
      }),
    );
  });

  it('applies several items in order, one event each', () => {
    const r = ok(
      patch(state, 'cordelia', [
        { id: F.birthday, value: '1909-03-05' },
        { id: F.website, value: 'https://zulip.com/path?q=1' },
        { id: F.mentor, value: [8, 9] },
        { id: F.editor, value: '1' },
        { id: F.pronouns, value: 'she/her' },
        { id: F.github, value: 'cordelia' },
        { id: F.phone, value: '' },
      ]),
    );
    expect(profile(r.state, 'cordelia')).toEqual({
      '1': '',
      '4': '1',
      '5': '1909-03-05',
      '6': 'https://zulip.com/path?q=1',
      '7': [8, 9],
      '8': 'she/her',
      '9': 'cordelia',
    });
    expect(r.events.map((e) => e.event)).toEqual([
      update(5, { id: 5, value: '1909-03-05' }),
      update(5, { id: 6, value: 'https://zulip.com/path?q=1' }),
      update(5, { id: 7, value: '[8,9]' }),
      update(5, { id: 4, value: '1' }),
      update(5, { id: 9, value: 'cordelia' }),
      update(5, { id: 1, value: '' }),
    ]);
  });

  it('sends nothing for an unchanged value (scenario: unchanged value)', () => {
    const r = ok(
      patch(state, 'hamlet', [
        { id: F.bio, value: 'I am **the** prince of Denmark.' },
        { id: F.mentor, value: [5, 6] },
      ]),
    );
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
    const empty = ok(patch(state, 'hamlet', []));
    expect(empty.state).toBe(state);
  });

  it('removes a value with null, and ignores null for an unset field', () => {
    const r = ok(
      patch(state, 'hamlet', [
        { id: F.phone, value: null },
        { id: F.birthday, value: null },
      ]),
    );
    expect(profile(r.state, 'hamlet')).not.toHaveProperty('1');
    expect(r.events).toEqual([{ event: update(4, { id: 1, value: null }), users: ACTIVE }]);
  });

  it('validates values by type (scenarios: too long, invalid date, URL, user, choice)', () => {
    fails(
      'iago',
      [{ id: F.phone, value: 't'.repeat(201) }],
      'Phone number is too long (limit: 50 characters)',
    );
    fails('iago', [{ id: F.bio, value: 't'.repeat(501) }], 'Biography is too long (limit: 500 characters)');
    fails('iago', [{ id: F.pronouns, value: 't'.repeat(51) }], 'Pronouns is too long (limit: 50 characters)');
    fails('iago', [{ id: F.github, value: [1] }], 'GitHub username is not a string');
    for (const bad of ['1909-3-5', 'a-b-c', '19090305', '2023-02-29', '2020-13-01']) {
      fails('iago', [{ id: F.birthday, value: bad }], 'Birthday is not a date');
    }
    fails('iago', [{ id: F.birthday, value: [123] }], 'Birthday is not a string');
    fails('iago', [{ id: F.website, value: 'not URL' }], 'Favorite website is not a URL');
    fails('iago', [{ id: F.website, value: 'javascript:alert(1)' }], 'Favorite website is not a URL');
    fails('iago', [{ id: F.mentor, value: [1000] }], 'Invalid user IDs: 1000');
    fails('iago', [{ id: F.mentor, value: [4, 1000, 1001] }], 'Invalid user IDs: 1000, 1001');
    fails('iago', [{ id: F.mentor, value: [4, 14] }], 'User with ID 14 is deactivated');
    fails('iago', [{ id: F.mentor, value: [11] }], 'User with ID 11 is a bot');
    fails('iago', [{ id: F.mentor, value: 'hamlet' }], 'User IDs is not a list');
    fails(
      'iago',
      [{ id: F.editor, value: 'foobar' }],
      "'foobar' is not a valid choice for 'Favorite editor'.",
    );
    fails('iago', [{ id: F.editor, value: 'Vim' }], "'Vim' is not a valid choice for 'Favorite editor'.");
    expect(
      ok(patch(state, 'iago', [{ id: F.editor, value: '1' }])).state.users.get(cast.iago)!.profile_data['4'],
    ).toBe('1');
  });

  it('refuses unknown fields and non-editable fields for non-admins (scenarios: not editable, admins may)', () => {
    fails('hamlet', [{ id: 1234, value: 'x' }], 'Field id 1234 not found.');
    fails(
      'aaron',
      [{ id: F.food, value: 'test2' }],
      'You are not allowed to change this field. Contact an administrator to update it.',
    );
    fails(
      'shiva',
      [{ id: F.food, value: null }],
      'You are not allowed to change this field. Contact an administrator to update it.',
    );
    const r = ok(patch(state, 'iago', [{ id: F.food, value: 'test' }]));
    expect(profile(r.state, 'iago')['3']).toBe('test');
  });

  it('validates every item before writing any (scenario: validation before write)', () => {
    fails(
      'hamlet',
      [
        { id: F.bio, value: 'ok' },
        { id: F.birthday, value: 'bad' },
      ],
      'Birthday is not a date',
    );
    fails(
      'hamlet',
      [
        { id: F.bio, value: 'ok' },
        { id: 99, value: 'x' },
      ],
      'Field id 99 not found.',
    );
  });

  it('parses data strictly (scenarios: not a list, missing id)', () => {
    fails('hamlet', '{}', 'data is not a list');
    fails('hamlet', 'nope', 'data is not valid JSON');
    fails('hamlet', [{ value: 'x' }], 'data[0]["id"] field is missing: Field required');
    fails('hamlet', [{ id: F.phone }], 'data[0]["value"] field is missing: Field required');
    fails('hamlet', [{ id: '1', value: 'x' }], 'data[0]["id"] is not an integer');
    fails('hamlet', [{ id: true, value: 'x' }], 'data[0]["id"] is not an integer');
    fails('hamlet', [{ id: 1, value: 5 }], 'data[0]["value"]["str"] is not a string');
    fails(
      'hamlet',
      [
        { id: 1, value: 'x' },
        { id: 7, value: [1, 'a'] },
      ],
      'data[1]["value"]["str"] is not a string',
    );
    fails('hamlet', [5], 'data[0] is not a dict');
    expectError(
      wire(state, 'hamlet', 'PATCH', '/users/me/profile_data', {}),
      state,
      "Missing 'data' argument",
      'REQUEST_VARIABLE_MISSING',
      {
        var_name: 'data',
      },
    );
    expectError(
      loose(updateProfileData)(state, as('hamlet'), {}),
      state,
      "Missing 'data' argument",
      'REQUEST_VARIABLE_MISSING',
      { var_name: 'data' },
    );
  });

  it('refuses bots before parsing', () => {
    expectError(patch(state, 'defaultBot', 'garbage'), state, 'This endpoint does not accept bot requests.');
  });

  it('ignores extra keys in items and reports unknown parameters', () => {
    const r = loose(updateProfileData)(state, as('hamlet'), {
      data: [{ id: F.pronouns, value: 'he/him', extra: 1 }],
      foo: 'bar',
    });
    expect(r.body).toEqual({ result: 'success', msg: '', ignored_parameters_unsupported: ['foo'] });
    expectValidResponse(OP, 200, r.body);
    expect(profile(r.state, 'hamlet')['8']).toBe('he/him');
  });

  it('sends updates only to users who can access the caller', () => {
    const snap = devSnapshot();
    snap.realm.can_access_all_users_group = 'role:members';
    snap.subscriptions = snap.subscriptions.filter(
      (s) => !(s.user_id === cast.polonius && s.stream_id === 1),
    );
    const s = createRealm(snap, { random: seededRandom(1) });
    // Polonius shares nothing active with Cordelia (she left Rome), but has a DM with Hamlet.
    const cordelia = ok(patch(s, 'cordelia', [{ id: F.pronouns, value: 'she' }]));
    expect(cordelia.events[0]!.users).toEqual(ACTIVE.filter((id) => id !== cast.polonius));
    const hamlet = ok(patch(s, 'hamlet', [{ id: F.pronouns, value: 'he' }]));
    expect(hamlet.events[0]!.users).toEqual(ACTIVE);
  });

  it('renders a small Markdown subset safely', () => {
    expect(renderMarkdown('')).toBe('');
    expect(renderMarkdown('a <b> & "c"')).toBe('<p>a &lt;b&gt; &amp; "c"</p>');
    expect(renderMarkdown('**bold** and `<code>` and [link](https://x.com/?a=1&b="2")')).toBe(
      '<p><strong>bold</strong> and <code>&lt;code&gt;</code> and <a href="https://x.com/?a=1&amp;b=&quot;2&quot;">link</a></p>',
    );
    expect(renderMarkdown('[bad](javascript:alert)')).toBe('<p>[bad](javascript:alert)</p>');
    expect(renderMarkdown('one\ntwo\n\nthree')).toBe('<p>one<br>\ntwo</p>\n<p>three</p>');
    expect(renderMarkdown('2 * 3 * 4 and \\*not\\*')).toBe('<p>2 * 3 * 4 and *not*</p>');
    expect(renderMarkdown('~~gone~~ *it*')).toBe('<p><del>gone</del> <em>it</em></p>');
  });

  it('never throws and fails purely (property)', () => {
    const item = fc.record({
      id: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.anything()),
      value: fc.oneof(
        fc.string(),
        fc.constant(null),
        fc.array(fc.integer({ min: 0, max: 20 })),
        fc.anything(),
      ),
    });
    checkLibraryLaws(updateProfileData, state, arbParams(['data'], [fc.array(item, { maxLength: 4 })]), 150);
    const wireItem = item.map((i) => JSON.stringify([i]) ?? '[]');
    checkWireLaws(updateProfileData, state, arbWireParams(['data'], [wireItem]), 100);
  });
});
