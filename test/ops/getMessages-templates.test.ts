import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { addReaction } from '../../src/ops/reactions/addReaction';
import { editChannel } from '../../src/ops/channels/editChannel';
import { getMessages } from '../../src/ops/messages/getMessages';
import { updateMessage } from '../../src/ops/messages/updateMessage';
import { updateSettings } from '../../src/ops/settings/updateSettings';
import { as, cast, devSnapshot, testCtx } from '../support/realm';

/**
 * GET /messages keeps ready-made channel message dicts between fetches (message-dict.ts
 * `channelDictAt`, Zulip's cached wide dicts): every answer must still show the state it is asked
 * of, after whatever a dict reads changed, and older states their own answers.
 */
const { hamlet, cordelia } = cast;
const VERONA = 1;

function realm(): RealmState {
  const snap = devSnapshot();
  snap['messages'] = Array.from({ length: 6 }, (_, k) => ({
    id: 1000 + k,
    sender_id: cordelia,
    stream_id: VERONA,
    topic: k % 2 === 0 ? 'even' : '',
    content: k === 5 ? '/me waves' : `message **${k}**`,
    timestamp: 1_700_000_000 + k,
    flags: { [hamlet]: k < 3 ? ['read' as const] : [], [cordelia]: ['read' as const] },
  }));
  return createRealm(snap, { random: seededRandom(1) });
}

type Msg = Record<string, unknown> & { id: number };
const window = (state: RealmState, params: Record<string, unknown> = {}) =>
  getMessages(
    state,
    as('hamlet'),
    {
      anchor: 'newest',
      num_before: 10,
      num_after: 0,
      narrow: [{ operator: 'channel', operand: VERONA }],
      ...params,
    },
    testCtx(),
  ).body['messages'] as Msg[];

describe('getMessages: kept message dicts', () => {
  it('answers each state as it is, after a sender rename, a channel rename and a reaction', () => {
    const s0 = realm();
    const before = JSON.stringify(window(s0));
    // Twice: the second read takes the kept dicts.
    expect(JSON.stringify(window(s0))).toBe(before);
    const renamed = updateSettings(s0, as('cordelia'), { full_name: 'Cordelia Renamed' }, testCtx());
    expect(renamed.status).toBe(200);
    expect(window(renamed.state).map((m) => m['sender_full_name'])).toEqual(
      Array(6).fill('Cordelia Renamed'),
    );
    const moved = editChannel(
      renamed.state,
      as('iago'),
      { stream_id: VERONA, new_name: 'Verona 2' },
      testCtx(),
    );
    expect(moved.status).toBe(200);
    expect(window(moved.state).map((m) => m['display_recipient'])).toEqual(Array(6).fill('Verona 2'));
    const reacted = addReaction(
      moved.state,
      as('hamlet'),
      { message_id: 1003, emoji_name: 'smile' },
      testCtx(),
    );
    expect(reacted.status).toBe(200);
    const after = window(reacted.state);
    expect((after.find((m) => m.id === 1003)!['reactions'] as unknown[]).length).toBe(1);
    expect((after.find((m) => m.id === 1002)!['reactions'] as unknown[]).length).toBe(0);
    // Older states still answer as they did, interleaved with the newer ones.
    expect(JSON.stringify(window(s0))).toBe(before);
    expect(window(moved.state).find((m) => m.id === 1003)!['reactions']).toEqual([]);
    expect(window(renamed.state)[0]!['display_recipient']).toBe('Verona');
  });

  it('keeps the options apart (apply_markdown, allow_empty_topic_name) and each reader its flags', () => {
    const s = realm();
    const html = window(s);
    const raw = window(s, { apply_markdown: false });
    expect(raw[0]!['content']).toBe('message **0**');
    expect(raw[0]!['content_type']).toBe('text/x-markdown');
    expect(window(s)).toEqual(html);
    expect(html[1]!['subject']).not.toBe('');
    expect(window(s, { allow_empty_topic_name: true })[1]!['subject']).toBe('');
    const cordelias = getMessages(
      s,
      as('cordelia'),
      { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'channel', operand: VERONA }] },
      testCtx(),
    ).body['messages'] as Msg[];
    expect(cordelias.map((m) => m['flags'])).toEqual(Array(6).fill(['read']));
    expect(html.map((m) => m['flags'])).toEqual([['read'], ['read'], ['read'], [], [], []]);
  });

  it('gives each caller its own dict: changing one does not change the next answer', () => {
    const s = realm();
    const first = window(s);
    first[0]!['content'] = 'changed';
    expect(window(s)[0]!['content']).not.toBe('changed');
  });

  it('answers an edited and a moved message as they now are, and the older state as it was', () => {
    const s0 = realm();
    const before = JSON.stringify(window(s0));
    window(s0);
    const edited = updateMessage(
      s0,
      as('cordelia'),
      { message_id: 1004, content: 'edited *now*' },
      testCtx({ now: 1_700_000_100 }),
    );
    expect(edited.status).toBe(200);
    const moved = updateMessage(
      edited.state,
      as('iago'),
      { message_id: 1002, topic: 'moved here' },
      testCtx({ now: 1_700_000_100 }),
    );
    expect(moved.status).toBe(200);
    const after = window(moved.state);
    expect(after.find((m) => m.id === 1004)!['content']).toBe('<p>edited <em>now</em></p>');
    expect(after.find((m) => m.id === 1002)!['subject']).toBe('moved here');
    expect(JSON.stringify(window(s0))).toBe(before);
  });
});
