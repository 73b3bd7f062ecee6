import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSavedSnippet } from '../../src/ops/personal/createSavedSnippet';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { arbParams, arbWireParams, checkLibraryLaws, checkWireLaws } from '../support/op-laws';
import { as, cast, devRealm, devSnapshot, testCtx, wire } from '../support/realm';
import { loose } from '../support/loose';

const OP = 'create-saved-snippet';
const state = devRealm();
const NOW = 1795219200;

function ok(r: OpResult): void {
  expect(r.status).toBe(200);
  expectValidResponse(OP, 200, r.body);
  for (const e of r.events) expectValidEvent(e.event);
}

function refused(r: OpResult, before: RealmState, msg: string, code?: string, extra?: object): void {
  expectRefused(OP, r, before, msg, code, extra);
}

const post = (
  s: RealmState,
  params: Record<string, string>,
  who: 'hamlet' | 'polonius' | 'defaultBot' = 'hamlet',
) => wire(s, who, 'POST', '/saved_snippets', params, testCtx());

describe('createSavedSnippet', () => {
  it('creates a snippet with the next id and the context time (scenario: create a snippet)', () => {
    const r = post(state, { title: 'Welcome message', content: '**Welcome** to the organization.' });
    ok(r);
    expect(r.body).toEqual({ result: 'success', msg: '', saved_snippet_id: 2 });
    const snippet = {
      id: 2,
      title: 'Welcome message',
      content: '**Welcome** to the organization.',
      date_created: NOW,
    };
    expect(r.state.savedSnippets.get(2)).toEqual({ ...snippet, user_id: cast.hamlet });
    expect(r.events).toEqual([
      { event: { type: 'saved_snippets', op: 'add', saved_snippet: snippet }, users: [cast.hamlet] },
    ]);
    expect(r.effects).toEqual([]);
    expect(state.savedSnippets.get(2)).toBeUndefined();
  });

  it('numbers snippets one after another and allows duplicate titles', () => {
    const a = createSavedSnippet(state, as('cordelia'), { title: 'Same', content: 'one' }, testCtx());
    const b = createSavedSnippet(
      a.state,
      as('cordelia'),
      { title: 'Same', content: 'two' },
      testCtx({ now: NOW + 5.7 }),
    );
    ok(a);
    ok(b);
    expect(b.body).toEqual({ result: 'success', msg: '', saved_snippet_id: 3 });
    expect(b.state.savedSnippets.get(3)).toEqual({
      id: 3,
      user_id: cast.cordelia,
      title: 'Same',
      content: 'two',
      date_created: NOW + 5,
    });
  });

  it('starts at id 1 in a realm without snippets', () => {
    const snap = devSnapshot();
    snap['saved_snippets'] = [];
    const empty = createRealm(snap, { random: seededRandom(1) });
    const r = createSavedSnippet(empty, as('hamlet'), { title: 't', content: 'c' }, testCtx());
    expect(r.body).toEqual({ result: 'success', msg: '', saved_snippet_id: 1 });
  });

  it('lets any role create snippets: guests and bots too', () => {
    for (const who of ['polonius', 'defaultBot'] as const) {
      const r = post(state, { title: 't', content: 'c' }, who);
      ok(r);
      expect(r.events[0]!.users).toEqual([cast[who]]);
    }
  });

  it('stores title and content stripped', () => {
    const r = post(state, { title: '  Hi \u00a0', content: '\n\nbody\t\n' });
    ok(r);
    expect(r.state.savedSnippets.get(2)).toMatchObject({ title: 'Hi', content: 'body' });
  });

  it("strips again with Python's str.strip before saving (U+001C..U+001F)", () => {
    const r = post(state, { title: '\u001ft\u001c', content: 'c' });
    ok(r);
    expect(r.state.savedSnippets.get(2)!.title).toBe('t');
  });

  it('counts lengths in code points (scenario: 60 astral characters)', () => {
    const title = '😀'.repeat(60);
    const r = post(state, { title, content: 'x' });
    ok(r);
    expect(r.state.savedSnippets.get(2)!.title).toBe(title);
    refused(
      post(state, { title: '😀'.repeat(61), content: 'x' }),
      state,
      'title is too long (limit: 60 characters)',
    );
  });

  it('accepts content up to the server message limit and refuses beyond (scenario: content too long)', () => {
    ok(post(state, { title: 't', content: 'x'.repeat(10000) }));
    refused(
      post(state, { title: 't', content: 'x'.repeat(10001) }),
      state,
      'content is too long (limit: 10000 characters)',
    );
    // The limit is measured after stripping.
    ok(post(state, { title: 't', content: ` ${'x'.repeat(10000)} ` }));
  });

  it("follows the server's max_message_length", () => {
    const snap = devSnapshot();
    snap['server'] = { ...(snap['server'] as object), max_message_length: 5 };
    const small = createRealm(snap, { random: seededRandom(1) });
    refused(
      createSavedSnippet(small, as('hamlet'), { title: 't', content: '123456' }),
      small,
      'content is too long (limit: 5 characters)',
    );
    ok(createSavedSnippet(small, as('hamlet'), { title: 't', content: '12345' }));
  });

  it('refuses blank titles and contents (scenario: whitespace-only title)', () => {
    refused(post(state, { title: '   ', content: 'x' }), state, 'title cannot be blank');
    refused(post(state, { title: 'x', content: '' }), state, 'content cannot be blank');
    refused(post(state, { title: 'x', content: '\u2028\u3000' }), state, 'content cannot be blank');
  });

  it('checks content before title', () => {
    refused(post(state, {}), state, "Missing 'content' argument", 'REQUEST_VARIABLE_MISSING', {
      var_name: 'content',
    });
    refused(post(state, { title: 'x' }), state, "Missing 'content' argument", 'REQUEST_VARIABLE_MISSING', {
      var_name: 'content',
    });
    refused(post(state, { content: 'x' }), state, "Missing 'title' argument", 'REQUEST_VARIABLE_MISSING', {
      var_name: 'title',
    });
    refused(post(state, { content: ' ' }), state, 'content cannot be blank');
    refused(
      post(state, { content: 'x'.repeat(10001), title: '' }),
      state,
      'content is too long (limit: 10000 characters)',
    );
    refused(post(state, { content: 'x', title: '' }), state, 'title cannot be blank');
  });

  it('types decoded parameters strictly', () => {
    refused(
      loose(createSavedSnippet)(state, as('hamlet'), { title: 't', content: 5 }),
      state,
      'content is not a string',
    );
    refused(
      loose(createSavedSnippet)(state, as('hamlet'), { title: null, content: 'c' }),
      state,
      'title is not a string',
    );
  });

  it('reports unknown parameters as ignored', () => {
    const r = post(state, { title: 't', content: 'c', folder: '1' });
    ok(r);
    expect(r.body).toEqual({
      result: 'success',
      msg: '',
      saved_snippet_id: 2,
      ignored_parameters_unsupported: ['folder'],
    });
  });

  it('refuses anonymous callers', () => {
    const r = createSavedSnippet(state, { anonymous: true }, { title: 't', content: 'c' });
    expect(r.status).toBe(401);
    expect(r.state).toBe(state);
  });

  it("gives each caller events that rebuild their client's list of snippets (property)", () => {
    type Snippet = { id: number; title: string; content: string; date_created: number };
    const clientView = (s: RealmState, id: number): Snippet[] =>
      [...s.savedSnippets.values()]
        .filter((x) => x.user_id === id)
        .map(({ id: sid, title, content, date_created }) => ({ id: sid, title, content, date_created }));
    const reduce = (list: Snippet[], event: OpResult['events'][number]['event']): Snippet[] => {
      if (event.type !== 'saved_snippets') return list;
      switch (event.op) {
        case 'add':
          return [...list, event['saved_snippet'] as Snippet];
        case 'update':
        case 'remove':
          throw new Error('not sent by createSavedSnippet');
        default: {
          const never: never = event;
          return never;
        }
      }
    };
    const request = fc.record({
      who: fc.constantFrom('hamlet', 'cordelia', 'polonius'),
      title: fc.constantFrom('t', ' t ', '', 'x'.repeat(61)),
      content: fc.constantFrom('c', '  ', 'hello **world**'),
    });
    fc.assert(
      fc.property(fc.array(request, { maxLength: 6 }), (requests) => {
        let s = state;
        const clients = new Map<number, Snippet[]>(
          [cast.hamlet, cast.cordelia, cast.polonius].map((id) => [id, clientView(s, id)]),
        );
        for (const { who, ...params } of requests) {
          const r = createSavedSnippet(s, as(who), params, testCtx());
          for (const { event, users } of r.events)
            for (const u of users) clients.set(u, reduce(clients.get(u)!, event));
          s = r.state;
        }
        for (const [id, list] of clients) expect(list).toEqual(clientView(s, id));
      }),
      { numRuns: 100 },
    );
  });

  it('is total and pure on failure (library)', () => {
    const shaped = [fc.string(), fc.constantFrom('', '  ', 'x'.repeat(61))];
    checkLibraryLaws(createSavedSnippet, state, arbParams(['title', 'content'], shaped));
  });

  it('is total and pure on failure (wire)', () => {
    checkWireLaws(
      createSavedSnippet,
      state,
      arbWireParams(['title', 'content'], [fc.constantFrom('x'.repeat(61), ' a ')]),
    );
  });
});
