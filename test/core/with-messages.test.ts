import { describe, expect, it } from 'vitest';
import { withMessages } from '../../src/core/with-messages';
import { EMPTY_STORE } from '../../src/core/messages/store-types';
import { devRealm } from '../support/realm';

describe('withMessages', () => {
  it('copies every field of the state but the store, and freezes the copy', () => {
    const state = devRealm();
    const next = withMessages(state, EMPTY_STORE);
    expect(new Set(Object.keys(next))).toEqual(new Set(Object.keys(state)));
    expect(next.messages).toBe(EMPTY_STORE);
    for (const key of Object.keys(state) as Array<keyof typeof state>)
      if (key !== 'messages') expect(next[key]).toBe(state[key]);
    expect(Object.isFrozen(next)).toBe(true);
  });
});
