import { describe, expect, it } from 'vitest';
import { getAlertWords } from '../../../src/ops/users/getAlertWords';
import { expectValidResponse } from '../../support/openapi';
import { as, devRealm, wire } from '../../support/realm';

const state = devRealm();

describe('getAlertWords (zerver/views/alert_words.py list_alert_words)', () => {
  it("answers the caller's alert words ([] for a user without any)", () => {
    const r = getAlertWords(state, as('hamlet'), {});
    expect(r.body).toEqual({ result: 'success', msg: '', alert_words: [] });
    expectValidResponse('get-alert-words', 200, r.body);
    expect(wire(state, 'hamlet', 'GET', '/users/me/alert_words').body).toEqual(r.body);
  });
});
