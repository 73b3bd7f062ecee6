import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { createRealm } from '../../src/core/snapshot/create';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { checkMessagesMatchNarrow } from '../../src/ops/messages/checkMessagesMatchNarrow';
import { expectRefused } from '../support/expect-result';
import { expectValidResponse } from '../support/openapi';
import { loose } from '../support/loose';
import { as, cast, devSnapshot, testCtx, wire, type CastName } from '../support/realm';

const OP = 'check-messages-match-narrow';
const { hamlet, cordelia } = cast;

const check = (state: RealmState, who: CastName, params: Record<string, unknown>) =>
  loose(checkMessagesMatchNarrow)(state, as(who), params, testCtx());
function ok(r: OpResult): Record<string, { match_content: string; match_subject: string }> {
  expectValidResponse(OP, r.status, r.body);
  expect(r.status).toBe(200);
  return (r.body as unknown as { messages: Record<string, { match_content: string; match_subject: string }> })
    .messages;
}

function realm(): RealmState {
  const snap = devSnapshot();
  snap['messages'] = [
    {
      id: 100,
      sender_id: cordelia,
      stream_id: 1,
      topic: 'Lunch <plans>',
      content: 'Who is **lunching** today?',
      timestamp: 1_700_000_000,
      flags: { [hamlet]: [] },
    },
    {
      id: 101,
      sender_id: cordelia,
      to: [hamlet],
      content: 'lunch at noon',
      timestamp: 1_700_000_001,
      flags: { [hamlet]: [], [cordelia]: ['read'] },
    },
    {
      id: 102,
      sender_id: cordelia,
      stream_id: 1,
      topic: 'other',
      content: 'dinner',
      timestamp: 1_700_000_002,
      flags: { [hamlet]: [] },
    },
    // Hamlet has no row: history, which this endpoint never looks at.
    {
      id: 103,
      sender_id: cordelia,
      stream_id: 1,
      topic: 'lunch',
      content: 'lunch again',
      timestamp: 1_700_000_003,
      flags: { [cordelia]: [] },
    },
  ];
  snap['user_topics'] = [];
  return createRealm(snap, { random: seededRandom(1) });
}

describe('checkMessagesMatchNarrow', () => {
  const s = realm();

  it('returns the matching messages with highlights for a search narrow', () => {
    const messages = ok(
      check(s, 'hamlet', {
        msg_ids: [103, 102, 101, 100, 999],
        narrow: [{ operator: 'search', operand: 'lunch' }],
      }),
    );
    expect(messages).toEqual({
      '100': {
        match_content: '<p>Who is <strong><span class="highlight">lunching</span></strong> today?</p>',
        match_subject: '<span class="highlight">Lunch</span> &lt;plans&gt;',
      },
      '101': { match_content: '<p><span class="highlight">lunch</span> at noon</p>', match_subject: '' },
    });
  });

  it('without a search term: the rendered content and escaped topic, no highlights', () => {
    const messages = ok(
      check(s, 'hamlet', { msg_ids: [100, 101, 102], narrow: [{ operator: 'channel', operand: 'Verona' }] }),
    );
    expect(Object.keys(messages)).toEqual(['100', '102']);
    expect(messages['100']).toEqual({
      match_content: '<p>Who is <strong>lunching</strong> today?</p>',
      match_subject: 'Lunch &lt;plans&gt;',
    });
  });

  it('over the wire, and refuses a bad narrow', () => {
    const r = wire(s, 'hamlet', 'GET', '/messages/matches_narrow', {
      msg_ids: '[100, 102]',
      narrow: '[{"operator": "search", "operand": "dinner"}]',
    });
    expect(Object.keys(ok(r))).toEqual(['102']);
    expectRefused(
      OP,
      check(s, 'hamlet', { msg_ids: [100], narrow: [{ operator: 'channel', operand: 'Atlantis' }] }),
      s,
      'Invalid narrow operator: unknown channel Atlantis',
      'BAD_NARROW',
      { desc: 'unknown channel Atlantis' },
    );
    expectRefused(
      OP,
      check(s, 'hamlet', { narrow: [] }),
      s,
      "Missing 'msg_ids' argument",
      'REQUEST_VARIABLE_MISSING',
      { var_name: 'msg_ids' },
    );
  });
});

describe('checkMessagesMatchNarrow: the with operator', () => {
  const s = realm();
  it("matches the messages of the given message's conversation", () => {
    const r = check(s, 'hamlet', { msg_ids: [100, 101, 102], narrow: [{ operator: 'with', operand: 102 }] });
    expect(Object.keys(ok(r))).toEqual(['102']);
    expectRefused(
      OP,
      check(s, 'hamlet', { msg_ids: [100], narrow: [{ operator: 'with', operand: 'x' }] }),
      s,
      "Invalid narrow operator: Invalid 'with' operator",
      'BAD_NARROW',
      { desc: "Invalid 'with' operator" },
    );
  });
});
