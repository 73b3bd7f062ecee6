import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getMessage as readMessage } from '../../src/core/messages/store';
import type { RealmState } from '../../src/core/state';
import { messageDict } from '../../src/ops/messages/message-dict';
import { sendMessage } from '../../src/ops/messages/sendMessage';
import { loose } from '../support/loose';
import { as, devRealm, testCtx, type CastName } from '../support/realm';

/**
 * A channel message's event dict is built from what the send holds (`sentChannelDict`), not through
 * `messageDict` of the stored record: the two must agree byte for byte (key order included) for any
 * sender, channel, topic and content, and on sends that follow one another (the avatar memo).
 */
describe('the message event of a channel send', () => {
  const senders: CastName[] = ['hamlet', 'iago', 'othello', 'cordelia', 'desdemona', 'polonius', 'aaron'];
  const channels = ['Verona', 'Denmark', 'Venice', 'Scotland', 'core team'];
  const text = fc.oneof(
    fc.string({ minLength: 1, maxLength: 20 }),
    fc.constantFrom(
      '/me waves',
      'Hello',
      '**bold** https://example.com',
      'a\n\nb',
      '@**King Hamlet**',
      'x <y> & z',
    ),
  );
  const send = fc.record({
    who: fc.constantFrom(...senders),
    to: fc.constantFrom(...channels),
    topic: fc.oneof(fc.constantFrom('lunch', 'Lunch', '', 'test topic'), fc.string({ maxLength: 8 })),
    content: text,
  });

  it('equals messageDict of the stored message, byte for byte', () => {
    fc.assert(
      fc.property(fc.array(send, { minLength: 1, maxLength: 6 }), (sends) => {
        let state: RealmState = devRealm();
        for (const s of sends) {
          const r = loose(sendMessage)(state, as(s.who), { type: 'stream', ...s }, testCtx());
          if (r.status !== 200) continue;
          state = r.state;
          const id = Number((r.body as Record<string, unknown>)['id']);
          const expected = JSON.stringify(
            messageDict(state, readMessage(state.messages, id)!, {
              applyMarkdown: true,
              clientGravatar: false,
              allowEmptyTopicName: true,
            }),
          );
          const messageEvents = r.events.filter((e) => e.event.type === 'message');
          expect(messageEvents.length).toBeGreaterThan(0);
          for (const e of messageEvents) {
            const message = (e.event as Record<string, unknown>)['message'] as Record<string, unknown>;
            // A restricted guest's copy hides the sender; every other copy is the dict itself.
            if (message['sender_full_name'] !== 'Unknown user')
              expect(JSON.stringify(message)).toBe(expected);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
