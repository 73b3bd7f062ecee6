import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkNarrowForEvents,
  eventNarrowPredicate,
  type NarrowedMessage,
} from '../../src/core/register/narrow-events';
import { fcParams } from '../laws/runs';

const stream = (topic: string, channel = 'Verona', sender = 'Hamlet@Zulip.com'): NarrowedMessage => ({
  type: 'stream',
  display_recipient: channel,
  subject: topic,
  sender_email: sender,
});
const direct: NarrowedMessage = {
  type: 'private',
  display_recipient: [{ id: 4 }],
  subject: '',
  sender_email: 'othello@zulip.com',
};

const matches = (narrow: readonly (readonly string[])[], message: NarrowedMessage, flags: string[] = []) =>
  eventNarrowPredicate(narrow)!(message, flags);

describe('the register narrow for message events', () => {
  it('accepts every message without terms', () => {
    expect(eventNarrowPredicate([])).toBeNull();
  });

  it('channel (and its alias stream): channel messages of that name, case-insensitive', () => {
    expect(matches([['channel', 'verona']], stream('x'))).toBe(true);
    expect(matches([['stream', 'VERONA']], stream('x'))).toBe(true);
    expect(matches([['channel', 'Denmark']], stream('x'))).toBe(false);
    expect(matches([['channel', 'Verona']], direct)).toBe(false);
  });

  it('topic: the whole topic, case-insensitive, never one of its words; exact-topic: exactly', () => {
    expect(matches([['topic', 'Lunch plans']], stream('lunch PLANS'))).toBe(true);
    expect(matches([['topic', 'plans']], stream('lunch  plans\u0085today'))).toBe(false);
    expect(matches([['topic', 'plans']], stream('lunch\u001cplans'))).toBe(false);
    expect(matches([['topic', 'lunch']], stream('lunch plans'))).toBe(false);
    expect(matches([['topic', 'plan']], stream('lunch plans'))).toBe(false);
    expect(matches([['topic', 'ch pl']], stream('lunch plans'))).toBe(false);
    expect(matches([['topic', '']], direct)).toBe(false);
    expect(matches([['exact-topic', 'Lunch']], stream('Lunch'))).toBe(true);
    expect(matches([['exact-topic', 'lunch']], stream('Lunch'))).toBe(false);
    expect(matches([['exact-topic', '']], stream(''))).toBe(true);
    expect(matches([['exact-topic', '']], direct)).toBe(false);
  });

  it('sender: by email, case-insensitive, for both kinds of message', () => {
    expect(matches([['sender', 'hamlet@zulip.com']], stream('x'))).toBe(true);
    expect(matches([['sender', 'othello@zulip.com']], direct)).toBe(true);
    expect(matches([['sender', 'iago@zulip.com']], direct)).toBe(false);
  });

  it('is: dm/private by type; starred, unread, mentioned/alerted by flags; resolved by topic', () => {
    expect(matches([['is', 'dm']], direct)).toBe(true);
    expect(matches([['is', 'private']], stream('x'))).toBe(false);
    expect(matches([['is', 'starred']], stream('x'), ['starred'])).toBe(true);
    expect(matches([['is', 'starred']], stream('x'), ['read'])).toBe(false);
    expect(matches([['is', 'unread']], stream('x'), [])).toBe(true);
    expect(matches([['is', 'unread']], stream('x'), ['read'])).toBe(false);
    expect(matches([['is', 'mentioned']], stream('x'), ['mentioned'])).toBe(true);
    expect(matches([['is', 'alerted']], stream('x'), ['wildcard_mentioned'])).toBe(false);
    expect(matches([['is', 'resolved']], stream('✔ done'))).toBe(true);
    expect(matches([['is', 'resolved']], stream('done ✔'))).toBe(false);
    expect(matches([['is', 'resolved']], direct)).toBe(false);
    // Zulip's predicate lets the is: operands it does not know through.
    expect(matches([['is', 'muted']], direct)).toBe(true);
  });

  it('several terms must all hold', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(
            ['channel', 'verona'],
            ['topic', 'plans'],
            ['is', 'dm'],
            ['is', 'unread'],
            ['sender', 'hamlet@zulip.com'],
          ),
          { maxLength: 4 },
        ),
        fc.constantFrom(stream('plans'), stream('other', 'Denmark'), direct),
        fc.subarray(['read', 'starred', 'mentioned']),
        (terms, message, flags) => {
          const all = terms.every((t) => matches([t], message, flags));
          expect(terms.length === 0 ? true : matches(terms, message, flags)).toBe(all);
        },
      ),
      fcParams(100),
    );
  });

  it('refuses, in order, the operators and operands a queue cannot filter by', () => {
    expect(
      checkNarrowForEvents([
        ['channel', 'x'],
        ['topic', 'y'],
        ['exact-topic', 'z'],
        ['sender', 'a'],
        ['is', 'dm'],
      ]),
    ).toBeUndefined();
    expect(
      checkNarrowForEvents([
        ['search', 'x'],
        ['near', '1'],
      ]),
    ).toMatchObject({
      msg: 'Operator search not supported.',
      code: 'BAD_REQUEST',
      status: 400,
    });
    expect(checkNarrowForEvents([['channels', 'public']])?.msg).toBe('Operator channels not supported.');
    expect(checkNarrowForEvents([['is', 'followed']])?.msg).toBe('Operand followed not supported.');
  });
});
