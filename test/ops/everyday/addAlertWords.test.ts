import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasAlertWord } from '../../../src/core/messages/personal-flags';
import { registerState } from '../../../src/core/register/register-state';
import { addAlertWords } from '../../../src/ops/users/addAlertWords';
import { getAlertWords } from '../../../src/ops/users/getAlertWords';
import { sendMessage } from '../../../src/ops/messages/sendMessage';
import { expectRefused } from '../../support/expect-result';
import { expectValidEvent, expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';

const OP = 'add-alert-words';
const NOW = 1795219200;
const state = devRealm();
const add = (s = state, words: string[]) => addAlertWords(s, as('hamlet'), { alert_words: words }, testCtx());

describe('addAlertWords (zerver/views/alert_words.py add_alert_words; test_alert_words.py)', () => {
  it('adds stripped words, drops blanks, answers the list and sends alert_words (test_json_list_add)', () => {
    const r = add(state, ['one ', '\n two', '', ' ', 'three']);
    expect(r.body).toEqual({ result: 'success', msg: '', alert_words: ['one', 'two', 'three'] });
    expectValidResponse(OP, 200, r.body);
    expect(r.events).toEqual([
      { event: { type: 'alert_words', alert_words: ['one', 'two', 'three'] }, users: [cast.hamlet] },
    ]);
    for (const e of r.events) expectValidEvent(e.event);
    expect(getAlertWords(r.state, as('hamlet'), {}).body['alert_words']).toEqual(['one', 'two', 'three']);
    expect(
      registerState(r.state, cast.hamlet, { fetch_event_types: ['alert_words'] }, NOW)['alert_words'],
    ).toEqual(['one', 'two', 'three']);
  });

  it('skips words held in any case; of new duplicates the last spelling wins (test_alert_words_are_case_insensitive… add_user_alert_words)', () => {
    const first = add(state, ['Alert']);
    const r = add(first.state, ['ALERT', 'new', 'NEW']);
    expect(r.body['alert_words']).toEqual(['Alert', 'NEW']);
    const same = add(r.state, ['alert']);
    expect(same.state).toBe(r.state);
    expect(same.events).toEqual([]);
  });

  it('refuses a word over 100 characters (AlertWord.MAX_ALERT_WORD_LENGTH) and non-lists', () => {
    expectRefused(
      OP,
      add(state, ['ok', 'x'.repeat(101)]),
      state,
      'alert_words[1] is too long (limit: 100 characters)',
    );
    const r = wire(state, 'hamlet', 'POST', '/users/me/alert_words', { alert_words: '"one"' }, testCtx());
    expect(r.body).toMatchObject({ result: 'error', msg: 'alert_words is not a list' });
  });

  it('sets has_alert_word on send for recipients whose word occurs (AlertWordNotificationProcessor)', () => {
    const withWords = add(state, ['Lunch']);
    const sent = sendMessage(
      withWords.state,
      as('cordelia'),
      { type: 'private', to: [cast.hamlet, cast.iago], content: 'Who is up for lunch?' },
      testCtx(),
    );
    const flagsOf = (id: number) =>
      (
        sent.events.find((e) => e.event.type === 'message' && e.users.includes(id))?.event as
          { flags?: string[] } | undefined
      )?.flags;
    expect(flagsOf(cast.hamlet)).toContain('has_alert_word');
    expect(flagsOf(cast.iago)).not.toContain('has_alert_word');
  });

  it("matches Zulip's word boundaries (test_alert_words.py test_alert_flags / markdown tests)", () => {
    expect(hasAlertWord('alert!', 'alert')).toBe(true);
    expect(hasAlertWord('(alert)', 'alert')).toBe(true);
    expect(hasAlertWord('"alert",', 'alert')).toBe(true);
    expect(hasAlertWord('alerts', 'alert')).toBe(false);
    expect(hasAlertWord('#alert', 'alert')).toBe(false);
    expect(hasAlertWord('xalert alert', 'alert')).toBe(true);
    expect(hasAlertWord('the ship it now', 'ship it')).toBe(true);
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string(), (w, s) =>
        hasAlertWord(s.toLowerCase(), w) ? s.toLowerCase().includes(w) : true,
      ),
    );
  });
});
