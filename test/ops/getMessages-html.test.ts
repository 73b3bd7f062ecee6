/**
 * GET /messages finds a stored message's HTML by its place in its chunk (core/messages/rendered.ts
 * `ContentReader`, a bounded cache keyed by the content column), and its `is_me_message` too.
 * What is read at a position must stay right
 * when the newest chunk grows in place, when two states append onto one store (a fork: the second
 * copies the column), and when an edit replaces a chunk's content.
 */
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/core/markdown';
import { ContentReader } from '../../src/core/messages/rendered';
import type { RealmState } from '../../src/core/state';
import { devRealm, testCtx, wire } from '../support/realm';

const base = devRealm();

function send(state: RealmState, content: string): { state: RealmState; id: number } {
  const r = wire(state, 'hamlet', 'POST', '/messages', {
    type: 'stream',
    to: 'Verona',
    topic: 'html',
    content,
  });
  expect(r.status).toBe(200);
  return { state: r.state, id: Number(r.body['id']) };
}

function fetched(state: RealmState): Map<number, string> {
  return new Map([...fetchedDicts(state)].map(([id, m]) => [id, m.content]));
}

function fetchedDicts(state: RealmState): Map<number, { content: string; is_me_message: boolean }> {
  const r = wire(state, 'hamlet', 'GET', '/messages', {
    anchor: 'newest',
    num_before: '50',
    num_after: '0',
    narrow: JSON.stringify([{ operator: 'channel', operand: 'Verona' }]),
  });
  expect(r.status).toBe(200);
  const messages = r.body['messages'] as Array<{ id: number; content: string; is_me_message: boolean }>;
  return new Map(messages.map((m) => [m.id, m]));
}

describe('GET /messages: HTML by position', () => {
  it('follows appends, forks and edits', () => {
    const one = send(base, '**one**');
    expect(fetched(one.state).get(one.id)).toBe(renderMarkdown('**one**'));
    // Two branches from the same state: each sees its own message at the same position.
    const left = send(one.state, '*left*');
    const right = send(one.state, '`right`');
    expect(left.id).toBe(right.id);
    expect(fetched(left.state).get(left.id)).toBe(renderMarkdown('*left*'));
    expect(fetched(right.state).get(right.id)).toBe(renderMarkdown('`right`'));
    expect(fetched(left.state).get(left.id)).toBe(renderMarkdown('*left*'));
    // `/me` on one branch only, at the same position.
    const me = send(left.state, '/me waves');
    const notMe = send(right.state, 'waves');
    expect(fetchedDicts(me.state).get(me.id)?.is_me_message).toBe(true);
    expect(fetchedDicts(notMe.state).get(notMe.id)?.is_me_message).toBe(false);
    expect(fetchedDicts(me.state).get(me.id)?.is_me_message).toBe(true);
    // The older state still answers without the new message.
    expect(fetched(one.state).has(left.id)).toBe(false);
    // An edit: the new text's HTML, the neighbours unchanged.
    const edited = wire(
      left.state,
      'hamlet',
      'PATCH',
      `/messages/${one.id}`,
      { content: '~~gone~~' },
      testCtx(),
    );
    expect(edited.status).toBe(200);
    const after = fetched(edited.state);
    expect(after.get(one.id)).toBe(renderMarkdown('~~gone~~'));
    expect(after.get(left.id)).toBe(renderMarkdown('*left*'));
    expect(fetched(left.state).get(one.id)).toBe(renderMarkdown('**one**'));
  });

  it('reads old history through the memo and new messages through the columns, alike', () => {
    const content = ['**bold**', '/me waves', 'plain', '/me two\nlines'];
    // Ids up to 1,000,000 - 16 chunks take the memo; newer ones the columns.
    const reader = new ContentReader(base.messages.with({ lastId: 1_000_000 }));
    for (const id of [1, 999_999])
      for (const [index, text] of content.entries()) {
        expect(reader.html(content, index, id)).toBe(renderMarkdown(text));
        expect(reader.isMe(content, index, id)).toBe(text.startsWith('/me ') && !text.includes('\n'));
      }
  });
});
