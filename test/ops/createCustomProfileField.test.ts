import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import type { OpResult } from '../../src/core/result';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { createCustomProfileField } from '../../src/ops/users/createCustomProfileField';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, devRealm, devSnapshot, wire, type CastName } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'create-custom-profile-field';
const state = devRealm();
const ACTIVE = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 15, 16];

/** The dev realm with only one field shown in the profile summary (Phone number). */
const roomy = (() => {
  const snap = devSnapshot();
  const fields = snap['custom_profile_fields'] as Array<Record<string, unknown>>;
  delete fields.find((f) => f['id'] === 6)!['display_in_profile_summary'];
  return createRealm(snap, { random: seededRandom(1) });
})();

const post = (s: RealmState, who: CastName, params: Record<string, string>) =>
  wire(s, who, 'POST', '/realm/profile_fields', params);

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
const fails = (params: Record<string, string>, msg: string, s: RealmState = state) =>
  expectError(post(s, 'iago', params), s, msg);

/** A success: the new id, the stored field, and the event with every field in order to all active users. */
function created(r: OpResult, before: RealmState): Record<string, unknown> {
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  const id = before.customProfileFields.maxKey() + 1;
  expect(r.body).toMatchObject({ result: 'success', msg: '', id });
  const field = r.state.customProfileFields.get(id)!;
  expect(field.order).toBe(id);
  expect(r.events).toHaveLength(1);
  const { event, users } = r.events[0]!;
  expect(users).toEqual(ACTIVE);
  expectValidEvent(event);
  const fields = (event as unknown as { fields: Array<{ id: number; order: number }> }).fields;
  expect(fields.map((f) => f.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, id]);
  return { ...field };
}

describe('createCustomProfileField', () => {
  it('refuses non-administrators before parsing (scenario: non-admin rejected)', () => {
    for (const who of ['hamlet', 'shiva', 'polonius', 'defaultBot'] as const) {
      expectError(
        post(state, who, { field_type: 'text id' }),
        state,
        'Must be an organization administrator',
        'UNAUTHORIZED_PRINCIPAL',
      );
    }
    expectError(
      loose(createCustomProfileField)(state, as('hamlet'), {}),
      state,
      'Must be an organization administrator',
      'UNAUTHORIZED_PRINCIPAL',
    );
  });

  it('creates a short text field and announces every field (scenario: create short text field)', () => {
    const r = post(roomy, 'iago', {
      name: 'Phone',
      hint: 'Contact number',
      field_type: '1',
      display_in_profile_summary: 'true',
    });
    expect(r.body).toEqual({ result: 'success', msg: '', id: 10 });
    expect(created(r, roomy)).toEqual({
      id: 10,
      name: 'Phone',
      hint: 'Contact number',
      type: 1,
      field_data: '',
      order: 10,
      display_in_profile_summary: true,
      required: false,
      editable_by_user: true,
      use_for_user_matching: false,
    });
    expect(r.events[0]!.event).toMatchObject({
      type: 'custom_profile_fields',
      fields: expect.arrayContaining([
        {
          id: 10,
          name: 'Phone',
          type: 1,
          hint: 'Contact number',
          field_data: '',
          order: 10,
          required: false,
          editable_by_user: true,
          display_in_profile_summary: true,
        },
        {
          id: 9,
          name: 'GitHub username',
          type: 7,
          hint: '',
          field_data: '{"subtype":"github"}',
          order: 8,
          required: false,
          editable_by_user: true,
          use_for_user_matching: true,
        },
      ]),
    });
  });

  it('lists events fields by order', () => {
    const snap = devSnapshot();
    (snap['custom_profile_fields'] as Array<Record<string, unknown>>)[0]!['order'] = 50;
    const s = createRealm(snap, { random: seededRandom(1) });
    const r = createCustomProfileField(s, as('desdemona'), { name: 'X', field_type: 4 });
    const fields = (r.events[0]!.event as unknown as { fields: Array<{ id: number }> }).fields;
    expect(fields.map((f) => f.id)).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 1]);
  });

  it('stores flags and strips the name, not the hint (scenario: name is stripped)', () => {
    const r = post(state, 'desdemona', {
      name: ' Name ',
      hint: ' Some name ',
      field_type: '1',
      required: 'true',
      editable_by_user: 'false',
      use_for_user_matching: 'true',
    });
    expect(created(r, state)).toMatchObject({
      name: 'Name',
      hint: ' Some name ',
      required: true,
      editable_by_user: false,
      use_for_user_matching: true,
    });
  });

  it('refuses a third summary field', () => {
    fails(
      { name: 'Phone', field_type: '1', display_in_profile_summary: 'true' },
      'Only 2 custom profile fields can be displayed in the profile summary.',
    );
    // The limit comes first, even before field_data and label checks.
    fails(
      { name: '', field_type: '3', field_data: '{}', display_in_profile_summary: 'true' },
      'Only 2 custom profile fields can be displayed in the profile summary.',
    );
  });

  it('checks parameters in order', () => {
    expectError(
      post(state, 'iago', { name: 'Phone' }),
      state,
      "Missing 'field_type' argument",
      'REQUEST_VARIABLE_MISSING',
      { var_name: 'field_type' },
    );
    fails({ name: 'Phone', field_type: 'text id' }, 'field_type is not valid JSON');
    fails({ name: 'Phone', field_type: '"1"' }, 'field_type is not an integer');
    fails({ field_type: '1', field_data: '[1]' }, 'field_data is not a dict');
    fails(
      { field_type: '3', field_data: '{"python": ["1"]}' },
      'field_data["python"]["dict[str,str]"] is not a dict',
    );
    fails(
      { field_type: '1', display_in_profile_summary: '1' },
      'display_in_profile_summary is not a boolean',
    );
    fails({ name: 'x', field_type: '1', required: 'null' }, 'required is not a boolean');
    fails({ name: 'x', field_type: '1', editable_by_user: '0' }, 'editable_by_user is not a boolean');
  });

  it('checks the label and hint before the type (scenarios: blank label, invalid type, hint too long)', () => {
    fails({ name: '', field_type: '100' }, 'Label cannot be blank.');
    fails({ name: '   ', field_type: '1' }, 'Label cannot be blank.');
    fails({ field_type: '1' }, 'Label cannot be blank.');
    fails({ name: 'Phone', field_type: '100' }, 'Invalid field type.');
    fails({ name: 'Phone', field_type: '0' }, 'Invalid field type.');
    fails(
      { name: 'Phone', hint: '*'.repeat(81), field_type: '1' },
      'hint is too long (limit: 80 characters)',
    );
    fails(
      { name: 'n'.repeat(41), hint: '*'.repeat(81), field_type: '1' },
      'hint is too long (limit: 80 characters)',
    );
    fails({ name: 'n'.repeat(41), field_type: '1' }, 'name is too long (limit: 40 characters)');
    // Lengths are code points.
    expect(
      post(state, 'iago', { name: '😀'.repeat(40), hint: '😀'.repeat(80), field_type: '1' }).status,
    ).toBe(200);
  });

  it('refuses summary display for long text and users fields', () => {
    const msg = 'Field type not supported for display in profile summary.';
    fails({ name: 'Bio', field_type: '2', display_in_profile_summary: 'true' }, msg, roomy);
    fails({ name: 'Boss', field_type: '6', display_in_profile_summary: 'true' }, msg, roomy);
    fails(
      { name: 'Bio', field_type: '100', display_in_profile_summary: 'true' },
      'Invalid field type.',
      roomy,
    );
  });

  it('allows user matching only for short text and external accounts', () => {
    fails(
      { name: 'Day', field_type: '4', use_for_user_matching: 'true' },
      'Field type not supported for user matching.',
    );
    const r = post(state, 'iago', {
      field_type: '7',
      field_data: '{"subtype":"twitter"}',
      use_for_user_matching: 'true',
    });
    expect(created(r, state)).toMatchObject({ name: 'Twitter username', use_for_user_matching: true });
  });

  it('refuses a duplicate label, case-sensitively (scenario: duplicate label)', () => {
    fails({ name: 'Phone number', field_type: '1' }, 'A field with that label already exists.');
    fails({ name: 'Phone number ', field_type: '4' }, 'A field with that label already exists.');
    expect(created(post(state, 'iago', { name: 'phone number', field_type: '1' }), state)).toMatchObject({
      name: 'phone number',
    });
  });

  it('validates dropdown choices (scenarios: select needs choices, order missing/blank/not a string, duplicates)', () => {
    const select = (data: string, msg: string) =>
      fails({ name: 'Lang', field_type: '3', field_data: data }, msg);
    select('{}', 'Field must have at least one choice.');
    select('{"0": {"text": "Python"}}', 'order key is missing from field_data');
    select('{"0": {"order": "1"}}', 'text key is missing from field_data');
    select('{"0": {"text": "Python", "order": ""}}', 'field_data["order"] cannot be blank.');
    select('{"0": {"text": " ", "order": ""}}', 'field_data["text"] cannot be blank.');
    select(
      '{"0": {"text": "Python", "order": 1}}',
      'field_data["0"]["dict[str,str]"]["order"] is not a string',
    );
    select(
      '{"0": {"text": "Dup", "order": "1"}, "1": {"text": "Dup", "order": "2"}}',
      'Field must not have duplicate choices.',
    );
    select('{"0": "Python"}', 'field_data is not a dict');
    select('{"": {"text": "Python", "order": "1"}}', "'value' cannot be blank.");
    select('{"0": {"text": "Python", "order": "1", "color": "red"}}', 'Unexpected arguments: color');
    // Field data comes before the label.
    fails({ name: '', field_type: '3' }, 'Field must have at least one choice.');
    const data = '{"0":{"text":"Python","order":"1"},"1":{"text":"Rust","order":"2"}}';
    expect(
      created(post(state, 'iago', { name: 'Lang', field_type: '3', field_data: data }), state),
    ).toMatchObject({
      type: 3,
      field_data: data,
    });
  });

  it('validates external accounts (scenarios: invalid subtype, custom needs pattern, pattern must be a URL)', () => {
    const external = (data: string, msg: string) =>
      fails({ name: 'Acct', field_type: '7', field_data: data }, msg);
    external('{"subtype": "linkedin"}', 'Invalid external account type');
    external('{"subtype": "custom"}', 'Custom external account must define URL pattern');
    external(
      '{"subtype": "custom", "url_pattern": "reddit.com/%(username)s"}',
      'field_data["url_pattern"] is not a URL',
    );
    external(
      '{"subtype": "custom", "url_pattern": "https://reddit.com/u"}',
      "URL pattern must contain '%(username)s'.",
    );
    external(
      '{"subtype": "custom", "url_pattern": "https://r.com/%(username)s/%(username)s"}',
      "URL pattern must contain '%(username)s'.",
    );
    external('{}', 'subtype key is missing from field_data');
    external('{"subtype": ""}', 'field_data["subtype"] cannot be blank.');
    external('{"subtype": "twitter", "x": "y"}', 'Unexpected arguments: x');
    external('{"subtype": {"a": "b"}}', 'field_data["subtype"] is not a string');
    const data = '{"subtype":"custom","url_pattern":"https://reddit.com/u/%(username)s"}';
    expect(
      created(post(state, 'iago', { name: 'Reddit', hint: 'u/…', field_type: '7', field_data: data }), state),
    ).toMatchObject({
      name: 'Reddit',
      hint: 'u/…',
      field_data: data,
    });
  });

  it('names default external accounts after their subtype', () => {
    fails({ field_type: '7', field_data: '{"subtype":"github"}' }, 'A field with that label already exists.');
    const r = post(state, 'iago', {
      name: '',
      hint: 'h'.repeat(99),
      field_type: '7',
      field_data: '{"subtype":"twitter","url_pattern":"https://x.com/%(username)s"}',
    });
    expect(created(r, state)).toMatchObject({
      name: 'Twitter username',
      hint: '',
      field_data: '{"subtype":"twitter"}',
    });
  });

  it('ignores field_data for plain types (scenario: field_data ignored)', () => {
    const r = post(state, 'iago', { name: 'Your mentor', field_type: '6', field_data: '{"x": "y"}' });
    expect(created(r, state)).toMatchObject({ type: 6, field_data: '' });
  });

  it('works through the library call and reports unknown parameters', () => {
    const r = loose(createCustomProfileField)(state, as('iago'), { name: 'Team', field_type: 8, extra: 1 });
    expect(r.body).toEqual({ result: 'success', msg: '', id: 10, ignored_parameters_unsupported: ['extra'] });
    expect(created(r, state)).toMatchObject({ name: 'Team', type: 8 });
  });

  it('never throws and fails purely (property)', () => {
    const names = [
      'field_type',
      'name',
      'hint',
      'field_data',
      'display_in_profile_summary',
      'required',
      'editable_by_user',
      'use_for_user_matching',
    ];
    const shaped = [
      fc.integer({ min: -1, max: 9 }),
      fc.boolean(),
      fc.string(),
      fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.dictionary(fc.string(), fc.string()))),
      fc.constant({ subtype: 'custom', url_pattern: 'https://a.com/%(username)s' }),
    ];
    checkLibraryLaws(createCustomProfileField, roomy, arbParams(names, shaped), 150);
    checkWireLaws(
      createCustomProfileField,
      roomy,
      arbWireParams(names, [fc.constantFrom('1', '3', '7', '{"subtype":"twitter"}')]),
      100,
    );
  });
});
