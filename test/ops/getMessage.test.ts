import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { createRealm } from '../../src/core/snapshot/create';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { getMessage } from '../../src/ops/messages/getMessage';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { expectRefused } from '../support/expect-result';
import { expectValidResponse } from '../support/openapi';
import { loose } from '../support/loose';
import { as, cast, devSnapshot, testCtx, wire, type CastName } from '../support/realm';

const OP = 'get-message';
const { hamlet, cordelia } = cast;

const get = (state: RealmState, who: CastName, params: Record<string, unknown>) =>
  loose(getMessage)(state, as(who), params, testCtx());
function ok(r: OpResult): Record<string, unknown> & { message: Record<string, unknown> } {
  expectValidResponse(OP, r.status, r.body);
  expect(r.status).toBe(200);
  return r.body as unknown as Record<string, unknown> & { message: Record<string, unknown> };
}

function realm(): RealmState {
  const snap = devSnapshot();
  snap['messages'] = [
    {
      id: 100,
      sender_id: cordelia,
      stream_id: 1,
      topic: '',
      content: 'in **Verona**',
      timestamp: 1_700_000_000,
      flags: { [hamlet]: ['starred'] },
    },
    {
      id: 101,
      sender_id: cordelia,
      to: [hamlet],
      content: 'just us',
      timestamp: 1_700_000_001,
      flags: { [hamlet]: [], [cordelia]: ['read'] },
    },
    {
      id: 102,
      sender_id: cordelia,
      stream_id: 7,
      topic: 'x',
      content: 'protected',
      timestamp: 1_700_000_002,
      flags: { [cordelia]: ['read'] },
    },
    {
      id: 103,
      sender_id: 1,
      stream_id: 6,
      topic: 'x',
      content: 'core',
      timestamp: 1_700_000_003,
      flags: { [hamlet]: [] },
    },
  ];
  snap['user_topics'] = [];
  return createRealm(snap, { random: seededRandom(1) });
}

describe('getMessage', () => {
  const s = realm();

  it('returns the message with the user flags and raw_content', () => {
    const body = ok(get(s, 'hamlet', { message_id: 100 }));
    expect(body['raw_content']).toBe('in **Verona**');
    expect(body.message).toMatchObject({
      id: 100,
      content: '<p>in <strong>Verona</strong></p>',
      flags: ['starred'],
      subject: 'general chat',
      stream_id: 1,
    });
    expect(
      ok(get(s, 'hamlet', { message_id: 100, apply_markdown: false, allow_empty_topic_name: true })).message,
    ).toMatchObject({ content: 'in **Verona**', subject: '' });
  });

  it('a public channel message without a row: read and historical', () => {
    expect(ok(get(s, 'othello', { message_id: 100 })).message['flags']).toEqual(['read', 'historical']);
  });

  it('refuses what the user may not read, and ids that do not exist, alike', () => {
    for (const [who, id] of [
      ['othello', 101],
      ['hamlet', 102],
      ['othello', 103],
      ['hamlet', 99999],
      ['polonius', 103],
    ] as const)
      expectRefused(OP, get(s, who, { message_id: id }), s, 'Invalid message(s)');
    expect(ok(get(s, 'cordelia', { message_id: 102 })).message['id']).toBe(102);
    expect(ok(get(s, 'hamlet', { message_id: 101 })).message['type']).toBe('private');
  });

  it('over the wire, and for a message just sent', () => {
    const sent = sendMessage(s, as('hamlet'), { type: 'direct', to: [cordelia], content: 'new' }, testCtx());
    const id = (sent.body as unknown as { id: number }).id;
    const r = wire(sent.state, 'cordelia', 'GET', `/messages/${id}`);
    expect(ok(r).message).toMatchObject({ id, flags: [], content: '<p>new</p>' });
    expect(wire(sent.state, 'cordelia', 'GET', '/messages/abc').status).toBe(404);
  });
});

describe('getMessage: web-public channels and guests (has_message_access)', () => {
  const ROME = 4;
  const { polonius } = cast;
  /** Rome is web-public; Polonius (a guest) is subscribed in the fixture: take him out. */
  function romeRealm(subscribed: boolean): RealmState {
    const snap = devSnapshot();
    snap['messages'] = [
      {
        id: 300,
        sender_id: hamlet,
        stream_id: ROME,
        topic: 'walls',
        content: 'old',
        timestamp: 1_700_000_000,
        flags: { [hamlet]: ['read'] },
      },
    ];
    snap['user_topics'] = [];
    if (!subscribed)
      snap['subscriptions'] = snap['subscriptions'].filter(
        (x) =>
          !(
            (x as { user_id: number }).user_id === polonius && (x as { stream_id: number }).stream_id === ROME
          ),
      );
    return createRealm(snap, { random: seededRandom(1) });
  }

  it('a guest who is not subscribed cannot read a web-public message (no web-public exception)', () => {
    const s = romeRealm(false);
    expectRefused(OP, get(s, 'polonius', { message_id: 300 }), s, 'Invalid message(s)');
    // A member reads it as history; a subscribed guest reads the shared history too.
    expect(ok(get(s, 'othello', { message_id: 300 })).message['flags']).toEqual(['read', 'historical']);
    expect(ok(get(romeRealm(true), 'polonius', { message_id: 300 })).message['id']).toBe(300);
  });
});
