import { describe, expect, it } from 'vitest';
import { addAlertWords } from '../../../src/ops/users/addAlertWords';
import { removeAlertWords } from '../../../src/ops/users/removeAlertWords';
import { expectValidEvent, expectValidResponse } from '../../support/openapi';
import { as, cast, devRealm, testCtx, wire } from '../../support/realm';

const OP = 'remove-alert-words';
const state = devRealm();
const held = addAlertWords(state, as('hamlet'), { alert_words: ['one', 'Two', 'three'] }, testCtx()).state;

describe('removeAlertWords (zerver/views/alert_words.py remove_alert_words; test_alert_words.py)', () => {
  it('removes words ignoring case, answers the rest, sends alert_words (test_json_list_remove)', () => {
    const r = removeAlertWords(held, as('hamlet'), { alert_words: ['ONE', 'two', 'absent'] }, testCtx());
    expect(r.body).toEqual({ result: 'success', msg: '', alert_words: ['three'] });
    expectValidResponse(OP, 200, r.body);
    expect(r.events).toEqual([
      { event: { type: 'alert_words', alert_words: ['three'] }, users: [cast.hamlet] },
    ]);
    for (const e of r.events) expectValidEvent(e.event);
  });

  it('removing words not held changes nothing', () => {
    const r = removeAlertWords(held, as('hamlet'), { alert_words: ['four'] }, testCtx());
    expect(r.state).toBe(held);
    expect(r.events).toEqual([]);
    expect(r.body['alert_words']).toEqual(['one', 'Two', 'three']);
  });

  it('over the wire (a JSON list, as the Python client sends)', () => {
    const r = wire(
      held,
      'hamlet',
      'DELETE',
      '/users/me/alert_words',
      { alert_words: '["three"]' },
      testCtx(),
    );
    expect(r.body).toEqual({ result: 'success', msg: '', alert_words: ['one', 'Two'] });
  });
});
