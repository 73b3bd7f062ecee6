import { describe, expect, it } from 'vitest';
import { getRealmEmoji } from '../../../src/ops/realm/getRealmEmoji';
import { expectValidResponse } from '../../support/openapi';
import { as, devRealm, wire } from '../../support/realm';

const state = devRealm();

describe('getRealmEmoji (zerver/views/realm_emoji.py list_emoji)', () => {
  it("answers the realm's custom emoji (none held yet: {})", () => {
    const r = getRealmEmoji(state, as('hamlet'), {});
    expect(r.body).toEqual({ result: 'success', msg: '', emoji: {} });
    expectValidResponse('get-custom-emoji', 200, r.body);
    expect(wire(state, 'hamlet', 'GET', '/realm/emoji').body).toEqual(r.body);
    expect(wire(state, null, 'GET', '/realm/emoji').status).toBe(401);
  });
});
