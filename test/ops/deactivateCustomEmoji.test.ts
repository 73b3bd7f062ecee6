import { describe, expect, it } from 'vitest';
import { deactivateCustomEmoji } from '../../src/ops/realm/deactivateCustomEmoji';
import { expectRefused } from '../support/expect-result';
import { emojiRealm } from '../support/emoji-realm';
import { expectValidEvent, expectValidResponse } from '../support/openapi';
import { arbWireParams, checkWireLaws } from '../support/op-laws';
import { wire, type CastName } from '../support/realm';
import type { RealmState } from '../../src/core/state';

/**
 * DELETE /realm/emoji/{emoji_name}. Rules from zerver/views/realm_emoji.py (`delete_emoji`),
 * zerver/lib/emoji.py (`check_remove_custom_emoji`), zerver/actions/realm_emoji.py
 * (`do_remove_realm_emoji`, `notify_realm_emoji`) and zerver/tests/test_realm_emoji.py.
 */
const OP = 'deactivate-custom-emoji';
const state = emojiRealm();
const del = (s: RealmState, name: string, who: CastName) => wire(s, who, 'DELETE', `/realm/emoji/${name}`);

describe('deactivateCustomEmoji', () => {
  it('an administrator deactivates; every active user gets realm_emoji update (test_delete_admin_or_author)', () => {
    const r = del(state, 'green_tick', 'iago');
    expect(r.body).toEqual({ result: 'success', msg: '' });
    expectValidResponse(OP, 200, r.body);
    expect(r.state.realmEmoji.get(1)!.deactivated).toBe(true);
    expect(r.events).toHaveLength(1);
    const e = r.events[0]!;
    expectValidEvent(e.event);
    expect(e.event).toMatchObject({ type: 'realm_emoji', op: 'update' });
    expect(
      (e.event as { realm_emoji: Record<string, { deactivated: boolean }> }).realm_emoji['1']!.deactivated,
    ).toBe(true);
    const active = [...state.users.values()].filter((u) => u.is_active).map((u) => u.user_id);
    expect(e.users).toEqual(active);
    // The name is free again, and reactions with the emoji now fail by name.
    expectRefused(
      'add-reaction',
      wire(r.state, 'hamlet', 'POST', '/messages/101/reactions', { emoji_name: 'green_tick' }),
      r.state,
      "Emoji 'green_tick' does not exist",
    );
  });

  it('the author may deactivate their own emoji; other members may not (test_delete_exception)', () => {
    expect(del(state, 'green_tick', 'hamlet').body).toEqual({ result: 'success', msg: '' });
    expectRefused(
      OP,
      del(state, 'party_parrot', 'hamlet'),
      state,
      'Must be an organization administrator or emoji author',
    );
  });

  it("an unknown or deactivated name: 404 Emoji 'x' does not exist (test_delete_no_emoji)", () => {
    for (const name of ['no_such', 'old_logo']) {
      const r = del(state, name, 'iago');
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ result: 'error', code: 'BAD_REQUEST', msg: `Emoji '${name}' does not exist` });
      expectValidResponse(OP, 404, r.body);
      expect(r.state).toBe(state);
    }
  });

  it('wire laws', () => {
    checkWireLaws(deactivateCustomEmoji, state, arbWireParams(['emoji_name']), 30);
  });
});
