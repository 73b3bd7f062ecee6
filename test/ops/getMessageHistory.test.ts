import { describe, expect, it } from 'vitest';
import { getMessageHistory } from '../../src/ops/messages/getMessageHistory';
import { updateMessage } from '../../src/ops/messages/updateMessage';
import { getMessage as getMessageOp } from '../../src/ops/messages/getMessage';
import { createRealm } from '../../src/core/snapshot/create';
import { seededRandom } from '../../src/core/context';
import type { RealmState } from '../../src/core/state';
import { expectValidResponse } from '../support/openapi';
import { expectRefused } from '../support/expect-result';
import { arbParams, checkLibraryLaws } from '../support/op-laws';
import { as, devRealm, devSnapshot, testCtx, wire } from '../support/realm';

/**
 * GET /messages/{message_id}/history: zerver/views/message_edit.py (`get_message_edit_history`,
 * `fill_edit_history_entries`), zerver/lib/message.py (`visible_edit_history_for_message`); tests in
 * zerver/tests/test_message_edit.py (test_edit_message_history…, test_get_message_edit_history…).
 */
const OP = 'get-message-history';
const T = 1735698300;
const base = devRealm();

/** Message 145 (hamlet, Verona > weather): content edited, then its topic moved. */
function edited(s: RealmState = base): RealmState {
  const a = updateMessage(
    s,
    as('hamlet'),
    { message_id: 145, content: 'Sunny' },
    testCtx({ now: T + 10 }),
  ).state;
  return updateMessage(a, as('iago'), { message_id: 145, topic: 'forecast' }, testCtx({ now: T + 20 })).state;
}

describe('getMessageHistory', () => {
  it('an unedited message: the original only', () => {
    const r = wire(base, 'hamlet', 'GET', '/messages/145/history');
    expectValidResponse(OP, 200, r.body);
    expect(r.body).toMatchObject({
      message_history: [{ topic: 'weather', user_id: 4, timestamp: T, content: expect.any(String) }],
    });
  });

  it('oldest first, each entry with the topic and content after it (fill_edit_history_entries)', () => {
    const s = edited();
    const r = wire(s, 'othello', 'GET', '/messages/145/history');
    expectValidResponse(OP, 200, r.body);
    const h = (r.body as unknown as { message_history: Array<Record<string, unknown>> }).message_history;
    expect(h.map((e) => [e['user_id'], e['timestamp'], e['topic'], e['content']])).toEqual([
      [4, T, 'weather', getMessageOrig()],
      [4, T + 10, 'weather', 'Sunny'],
      [2, T + 20, 'forecast', 'Sunny'],
    ]);
    expect(h[1]).toMatchObject({ prev_content: getMessageOrig(), content_html_diff: expect.any(String) });
    expect(h[2]).toMatchObject({ prev_topic: 'weather' });
    // Fetched messages carry the history and both timestamps.
    const m = getMessageOp(s, as('othello'), { message_id: 145 }).body as {
      message: Record<string, unknown>;
    };
    expect(m.message).toMatchObject({ last_edit_timestamp: T + 10, last_moved_timestamp: T + 20 });
    expect((m.message['edit_history'] as unknown[]).length).toBe(2);
  });

  it('content_html_diff is the word-level diff (highlight_html_differences)', () => {
    const s = updateMessage(
      base,
      as('hamlet'),
      { message_id: 145, content: 'one **two**' },
      testCtx({ now: T + 10 }),
    ).state;
    const s2 = updateMessage(
      s,
      as('hamlet'),
      { message_id: 145, content: 'three' },
      testCtx({ now: T + 20 }),
    ).state;
    const h = (
      wire(s2, 'hamlet', 'GET', '/messages/145/history').body as unknown as {
        message_history: Array<Record<string, unknown>>;
      }
    ).message_history;
    expect(h[2]?.['content_html_diff']).toBe(
      '<div><p><span class="highlight_text_inserted">three</span></p>' +
        ' <p><span class="highlight_text_deleted">one <strong>two</strong></span></p></div>',
    );
  });

  it('policy "moves": moves only; "none": refused', () => {
    const snap = devSnapshot();
    snap.realm.message_edit_history_visibility_policy = 'moves';
    const moves = edited(createRealm(snap, { random: seededRandom(1) }));
    const r = wire(moves, 'othello', 'GET', '/messages/145/history');
    const h = (r.body as unknown as { message_history: Array<Record<string, unknown>> }).message_history;
    expect(h.map((e) => e['timestamp'])).toEqual([T, T + 20]);
    expect(h.every((e) => !('prev_content' in e))).toBe(true);
    snap.realm.message_edit_history_visibility_policy = 'none';
    const none = createRealm(snap, { random: seededRandom(1) });
    expectRefused(
      OP,
      wire(none, 'othello', 'GET', '/messages/145/history'),
      none,
      'Message edit history is disabled in this organization',
    );
  });

  it('Invalid message(s) for messages the user cannot access', () => {
    expectRefused(OP, wire(base, 'cordelia', 'GET', '/messages/133/history'), base, 'Invalid message(s)');
    expectRefused(OP, wire(base, 'hamlet', 'GET', '/messages/9999/history'), base, 'Invalid message(s)');
  });

  it('laws', () => {
    checkLibraryLaws(getMessageHistory, edited(), arbParams(['message_id', 'allow_empty_topic_name']), 80);
  });
});

function getMessageOrig(): string {
  return (getMessageOp(base, as('hamlet'), { message_id: 145 }).body as { raw_content: string }).raw_content;
}
