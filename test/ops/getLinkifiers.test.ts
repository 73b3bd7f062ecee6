import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getLinkifiers } from '../../src/ops/realm/getLinkifiers';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import { expectValidResponse } from '../support/openapi';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, devRealm, devSnapshot, wire, type EditableSnapshot } from '../support/realm';

const OP = 'get-linkifiers';
const state = devRealm();

const DEV_LINKIFIERS = [
  {
    pattern: '#(?P<id>[0-9]+)',
    url_template: 'https://github.com/zulip/zulip/issues/{id}',
    id: 1,
    example_input: '#123',
    reverse_template: '#{id}',
    alternative_url_templates: [],
  },
  {
    pattern: 'ZUL-(?P<id>[0-9]+)',
    url_template: 'https://trac.example.com/ticket/{id}',
    id: 2,
    example_input: null,
    reverse_template: null,
    alternative_url_templates: [],
  },
];

function realmWith(linkifiers: EditableSnapshot['linkifiers']) {
  const snap = devSnapshot();
  snap.linkifiers = linkifiers;
  return createRealm(snap, { random: seededRandom(1) });
}

describe('getLinkifiers', () => {
  it('lists every linkifier with every field, in processing order', () => {
    const r = getLinkifiers(state, as('hamlet'), {});
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: 'success', msg: '', linkifiers: DEV_LINKIFIERS });
    expectValidResponse(OP, 200, r.body);
    expect(r.state).toBe(state);
    expect(r.events).toEqual([]);
    expect(r.effects).toEqual([]);
  });

  it('keeps the stored order, not id order (scenario: reordered C, A, B)', () => {
    const s = realmWith([
      { id: 3, pattern: 'C(?P<n>\\d+)', url_template: 'https://c/{n}' },
      {
        id: 1,
        pattern: 'A(?P<n>\\d+)',
        url_template: 'https://a/{n}',
        alternative_url_templates: ['https://a2/{n}'],
      },
      {
        id: 2,
        pattern: 'B(?P<n>\\d+)',
        url_template: 'https://b/{n}',
        example_input: 'B1',
        reverse_template: 'B{n}',
      },
    ]);
    const r = wire(s, 'iago', 'GET', '/realm/linkifiers');
    expect(r.status).toBe(200);
    expectValidResponse(OP, 200, r.body);
    const list = (r.body as unknown as { linkifiers: Array<Record<string, unknown>> }).linkifiers;
    expect(list.map((l) => l['id'])).toEqual([3, 1, 2]);
    expect(list[1]).toEqual({
      pattern: 'A(?P<n>\\d+)',
      url_template: 'https://a/{n}',
      id: 1,
      example_input: null,
      reverse_template: null,
      alternative_url_templates: ['https://a2/{n}'],
    });
  });

  it('lists the first-created linkifier first (scenario: list linkifiers in order)', () => {
    const s = realmWith([
      { id: 1, pattern: '#(?P<id>[123])', url_template: 'https://realm.com/my_realm_filter/{id}' },
      { id: 2, pattern: 'ZUL-(?P<id>[0-9]+)', url_template: 'https://trac.example.com/ticket/{id}' },
    ]);
    const r = wire(s, 'hamlet', 'GET', '/realm/linkifiers');
    expect((r.body as unknown as { linkifiers: Array<{ pattern: string }> }).linkifiers[0]).toMatchObject({
      pattern: '#(?P<id>[123])',
      url_template: 'https://realm.com/my_realm_filter/{id}',
      id: 1,
    });
  });

  it('answers an empty list for a realm without linkifiers', () => {
    const r = getLinkifiers(realmWith([]), as('hamlet'), {});
    expect(r.body).toEqual({ result: 'success', msg: '', linkifiers: [] });
    expectValidResponse(OP, 200, r.body);
  });

  it('is open to every authenticated user: guests and bots too', () => {
    for (const who of ['polonius', 'defaultBot', 'embeddedBot', 'aaron'] as const) {
      const r = wire(state, who, 'GET', '/realm/linkifiers');
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ result: 'success', msg: '', linkifiers: DEV_LINKIFIERS });
    }
  });

  it('never reports extra parameters (not a typed endpoint)', () => {
    const r = wire(state, 'hamlet', 'GET', '/realm/linkifiers', { foo: 'bar' });
    expect(r.body).toEqual({ result: 'success', msg: '', linkifiers: DEV_LINKIFIERS });
    expect(getLinkifiers(state, as('hamlet'), { x: 1 }).body).not.toHaveProperty(
      'ignored_parameters_unsupported',
    );
  });

  it('refuses unauthenticated callers', () => {
    const r = wire(state, null, 'GET', '/realm/linkifiers');
    expect(r.status).toBe(401);
    expect(r.body).toEqual({
      result: 'error',
      msg: 'Not logged in: API authentication or user session required',
      code: 'UNAUTHORIZED',
    });
    expect(getLinkifiers(state, { anonymous: true }).status).toBe(401);
  });

  it('is total and pure on failure (library)', () => {
    checkLibraryLaws(getLinkifiers, state, arbParams(['x']));
  });

  it('is total and pure on failure (wire)', () => {
    checkWireLaws(getLinkifiers, state, arbWireParams(['x']));
  });

  it('hands out fresh arrays (callers cannot reach the state)', () => {
    const r = getLinkifiers(state, as('hamlet'), {});
    const list = (r.body as unknown as { linkifiers: Array<{ alternative_url_templates: string[] }> })
      .linkifiers;
    list[0]!.alternative_url_templates.push('x');
    expect(state.linkifiers[0]!.alternative_url_templates).toEqual([]);
    fc.assert(fc.property(fc.constant(0), () => true));
  });
});
