import { describe, expect, it } from 'vitest';
import { getMessage } from '../../src/core/messages/store';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { removeReaction } from '../../src/ops/reactions/removeReaction';
import { expectRefused } from '../support/expect-result';
import { arbWireParams, checkWireLaws } from '../support/op-laws';
import { expectReactionOk, hasReactionBit } from '../support/emoji-realm';
import { devRealm, wire, type CastName } from '../support/realm';

/**
 * DELETE /messages/{message_id}/reactions. Rules from zerver/views/reactions.py
 * (`remove_reaction`), zerver/actions/reactions.py (`do_remove_reaction`) and
 * zerver/tests/test_reactions.py.
 */
const OP = 'remove-reaction';
const state = devRealm();

const remove = (s: RealmState, id: number | string, who: CastName, params: Record<string, string>) =>
  wire(s, who, 'DELETE', `/messages/${id}/reactions`, params);

const ok = (r: OpResult) => expectReactionOk(OP, r);

describe('removeReaction', () => {
  it('by name: the code is looked up; the event carries the stored reaction (test_remove_reaction)', () => {
    // Desdemona's +1 on Verona's message 145; `thumbs_up` names the same code.
    const r = remove(state, 145, 'desdemona', { emoji_name: 'thumbs_up' });
    ok(r);
    expect(getMessage(r.state.messages, 145)!.reactions).toEqual([]);
    expect(hasReactionBit(state, 145)).toBe(true);
    expect(hasReactionBit(r.state, 145)).toBe(false);
    expect(r.events).toHaveLength(1);
    expect(r.events[0]!.event).toMatchObject({
      type: 'reaction',
      op: 'remove',
      user_id: 1,
      message_id: 145,
      emoji_name: '+1',
      emoji_code: '1f44d',
      reaction_type: 'unicode_emoji',
    });
    expect(r.events[0]!.users).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
  });

  it('by code, the type defaulting to unicode_emoji; an add then a remove restores the state', () => {
    const added = wire(state, 'hamlet', 'POST', '/messages/101/reactions', { emoji_name: 'octopus' });
    const r = remove(added.state, 101, 'hamlet', { emoji_code: '1f419' });
    ok(r);
    expect(getMessage(r.state.messages, 101)!.reactions).toEqual([]);
    expect(hasReactionBit(r.state, 101)).toBe(false);
  });

  it('errors in Zulip’s order (test_remove_nonexisting_reaction, test_remove_reaction_without_name_or_code)', () => {
    expectRefused(
      OP,
      remove(state, 145, 'hamlet', { emoji_name: '+1' }),
      state,
      "Reaction doesn't exist.",
      'REACTION_DOES_NOT_EXIST',
    );
    // Same code, another type.
    expectRefused(
      OP,
      remove(state, 145, 'desdemona', { emoji_code: '1f44d', reaction_type: 'realm_emoji' }),
      state,
      "Reaction doesn't exist.",
      'REACTION_DOES_NOT_EXIST',
    );
    expectRefused(
      OP,
      remove(state, 145, 'desdemona', {}),
      state,
      'At least one of the following arguments must be present: emoji_name, emoji_code',
    );
    expectRefused(
      OP,
      remove(state, 145, 'desdemona', { emoji_name: 'nope' }),
      state,
      "Emoji 'nope' does not exist",
    );
    expectRefused(OP, remove(state, 166, 'othello', { emoji_name: '+1' }), state, 'Invalid message(s)');
    expectRefused(OP, remove(state, 9999, 'othello', {}), state, 'Invalid message(s)');
  });

  it('wire laws: failures change nothing, successes validate', () => {
    checkWireLaws(
      removeReaction,
      state,
      arbWireParams(['message_id', 'emoji_name', 'emoji_code', 'reaction_type']),
      40,
    );
  });
});
