import { describe, expect, it } from 'vitest';
import { getRowFlags } from '../../src/core/messages/rows';
import { getMessage } from '../../src/core/messages/store';
import type { OpResult } from '../../src/core/result';
import type { RealmState } from '../../src/core/state';
import { expectRefused } from '../support/expect-result';
import { arbWireParams, checkWireLaws } from '../support/op-laws';
import { addReaction } from '../../src/ops/reactions/addReaction';
import { devRealm, wire, type CastName } from '../support/realm';
import { emojiRealm, expectReactionOk, hasReactionBit } from '../support/emoji-realm';
import { openCheckpoint, sealRealmCheckpoint } from '../../src/host/checkpoint';
import { snapshotRealm } from '../../src/core/snapshot/export';

/**
 * POST /messages/{message_id}/reactions. Rules from zerver/actions/reactions.py
 * (`check_add_reaction`, `do_add_reaction`, `notify_reaction_update`), zerver/lib/emoji.py
 * (`get_emoji_data`, `check_emoji_request`) and zerver/tests/test_reactions.py.
 */
const OP = 'add-reaction';
const state = devRealm();
const VERONA = Array.from({ length: 11 }, (_, i) => i + 1);

const add = (s: RealmState, id: number | string, who: CastName, params: Record<string, string>) =>
  wire(s, who, 'POST', `/messages/${id}/reactions`, params);

const ok = (r: OpResult) => expectReactionOk(OP, r);

describe('addReaction', () => {
  it('by name alone: the code and type are looked up; the event goes to the channel (test_add_reaction)', () => {
    const r = add(state, 101, 'hamlet', { emoji_name: 'octopus' });
    ok(r);
    expect(getMessage(r.state.messages, 101)!.reactions).toEqual([
      { user_id: 4, emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' },
    ]);
    expect(hasReactionBit(state, 101)).toBe(false);
    expect(hasReactionBit(r.state, 101)).toBe(true);
    expect(r.events).toEqual([
      {
        event: {
          type: 'reaction',
          op: 'add',
          user_id: 4,
          user: { user_id: 4, email: state.users.get(4)!.email, full_name: 'King Hamlet' },
          message_id: 101,
          emoji_name: 'octopus',
          emoji_code: '1f419',
          reaction_type: 'unicode_emoji',
        },
        users: VERONA,
      },
    ]);
    // Fetched messages carry it.
    const fetched = wire(r.state, 'othello', 'GET', '/messages/101').body as unknown as {
      message: { reactions: unknown[] };
    };
    expect(fetched.message.reactions).toEqual([
      { user_id: 4, emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' },
    ]);
  });

  it('with name, code and type; `zulip` is the extra emoji (test_add_zulip_emoji_reaction)', () => {
    ok(
      add(state, 101, 'hamlet', {
        emoji_name: 'thumbs_up',
        emoji_code: '1f44d',
        reaction_type: 'unicode_emoji',
      }),
    );
    const z = add(state, 101, 'hamlet', { emoji_name: 'zulip' });
    ok(z);
    expect(z.events[0]!.event).toMatchObject({ emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' });
  });

  it("the same user's identical reaction: Reaction already exists. (test_add_duplicate_reaction)", () => {
    expectRefused(
      OP,
      add(state, 145, 'desdemona', { emoji_name: '+1' }),
      state,
      'Reaction already exists.',
      'REACTION_ALREADY_EXISTS',
    );
  });

  it("another user's reaction with that code is a vote: its name is kept, unchecked (test_vote_existing_reaction)", () => {
    const r = add(state, 145, 'hamlet', {
      emoji_name: 'like',
      emoji_code: '1f44d',
      reaction_type: 'unicode_emoji',
    });
    ok(r);
    expect(getMessage(r.state.messages, 145)!.reactions.map((x) => [x.user_id, x.emoji_name])).toEqual([
      [1, '+1'],
      [4, '+1'],
    ]);
  });

  it('emoji errors in check_emoji_request order (test_invalid_emoji_code, test_invalid_emoji_name)', () => {
    const refused = (params: Record<string, string>, msg: string) =>
      expectRefused(OP, add(state, 101, 'hamlet', params), state, msg);
    refused({ emoji_name: 'no_such_emoji' }, "Emoji 'no_such_emoji' does not exist");
    refused(
      { emoji_name: 'octopus', emoji_code: 'fffff', reaction_type: 'unicode_emoji' },
      'Invalid emoji code.',
    );
    refused(
      { emoji_name: 'smile_cat', emoji_code: '1f419', reaction_type: 'unicode_emoji' },
      'Invalid emoji name.',
    );
    refused({ emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'other' }, 'Invalid emoji type.');
    refused(
      { emoji_name: 'zulip', emoji_code: 'zuli', reaction_type: 'zulip_extra_emoji' },
      'Invalid emoji code.',
    );
    refused(
      { emoji_name: 'zulip2', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' },
      'Invalid emoji name.',
    );
    refused(
      { emoji_name: 'green_tick', emoji_code: '1', reaction_type: 'realm_emoji' },
      'Invalid custom emoji.',
    );
    // Only the type given: the code comes from the name.
    refused(
      { emoji_name: 'no_such_emoji', reaction_type: 'unicode_emoji' },
      "Emoji 'no_such_emoji' does not exist",
    );
  });

  it('messages the user may not act on: Invalid message(s) (test_inaccessible_reaction)', () => {
    // A direct message between Hamlet and Cordelia, a private channel's message, no message.
    expectRefused(OP, add(state, 166, 'othello', { emoji_name: 'octopus' }), state, 'Invalid message(s)');
    expectRefused(OP, add(state, 9999, 'hamlet', { emoji_name: 'octopus' }), state, 'Invalid message(s)');
    // The access check comes before the emoji's.
    expectRefused(OP, add(state, 9999, 'hamlet', { emoji_name: 'nope' }), state, 'Invalid message(s)');
  });

  it('a public channel message without a row: a historical row is created (create_historical_user_messages)', () => {
    // Aaron is not subscribed to Denmark and holds no row for its message 135.
    expect(getRowFlags(state.messages.rows.get(8)!, 135)).toBeUndefined();
    const r = add(state, 135, 'aaron', { emoji_name: 'octopus' });
    ok(r);
    expect(getRowFlags(r.state.messages.rows.get(8)!, 135)).toBe(1 | (1 << 7));
    expect(r.events.at(-1)!.users).toContain(8);
  });

  it('participation follows the topic under automatically_follow_topics_policy=1 (test_reaction_participation)', () => {
    const snapUser = state.users.get(4)!;
    const following = Object.freeze({
      ...state,
      users: state.users.set(4, {
        ...snapUser,
        settings: { ...snapUser.settings, automatically_follow_topics_policy: 1 },
      }),
    }) as RealmState;
    const r = add(following, 101, 'hamlet', { emoji_name: 'octopus' });
    ok(r);
    expect(r.events.map((e) => e.event.type)).toEqual(['muted_topics', 'user_topic', 'reaction']);
  });

  it('wire laws: failures change nothing, successes validate', () => {
    checkWireLaws(
      addReaction,
      state,
      arbWireParams(['message_id', 'emoji_name', 'emoji_code', 'reaction_type']),
      40,
    );
  });
});

describe('addReaction with custom emoji (test_realm_emoji_reactions)', () => {
  const realm = emojiRealm();
  it('by name: the custom emoji wins; its id is the code', () => {
    const r = add(realm, 101, 'hamlet', { emoji_name: 'green_tick' });
    ok(r);
    expect(r.events[0]!.event).toMatchObject({
      emoji_code: '1',
      reaction_type: 'realm_emoji',
      emoji_name: 'green_tick',
    });
  });

  it("check_emoji_request's custom emoji errors", () => {
    const refused = (params: Record<string, string>, msg: string) =>
      expectRefused(OP, add(realm, 101, 'hamlet', params), realm, msg);
    refused(
      { emoji_name: 'green_tick', emoji_code: '99', reaction_type: 'realm_emoji' },
      'Invalid custom emoji.',
    );
    refused(
      { emoji_name: 'green_tick', emoji_code: '01', reaction_type: 'realm_emoji' },
      'Invalid custom emoji.',
    );
    refused(
      { emoji_name: 'party_parrot', emoji_code: '1', reaction_type: 'realm_emoji' },
      'Invalid custom emoji name.',
    );
    refused(
      { emoji_name: 'old_logo', emoji_code: '3', reaction_type: 'realm_emoji' },
      'This custom emoji has been deactivated.',
    );
    // A deactivated emoji is not found by name.
    refused({ emoji_name: 'old_logo' }, "Emoji 'old_logo' does not exist");
  });

  it('a vote for an existing reaction with a deactivated emoji is allowed', () => {
    const first = add(realm, 101, 'hamlet', { emoji_name: 'green_tick' });
    const gone = wire(first.state, 'iago', 'DELETE', '/realm/emoji/green_tick');
    const vote = add(gone.state, 101, 'othello', {
      emoji_name: 'x',
      emoji_code: '1',
      reaction_type: 'realm_emoji',
    });
    ok(vote);
    expect(vote.events[0]!.event).toMatchObject({ emoji_name: 'green_tick' });
    // And the reaction can still be removed.
    const removed = wire(vote.state, 'hamlet', 'DELETE', '/messages/101/reactions', {
      emoji_code: '1',
      reaction_type: 'realm_emoji',
    });
    expect(removed.body).toEqual({ result: 'success', msg: '' });
  });
});

describe('reactions and custom emoji in checkpoints', () => {
  it('a binary checkpoint carries new reactions, the has:reaction bit and realm_emoji', () => {
    const r = add(emojiRealm(), 101, 'hamlet', { emoji_name: 'green_tick' });
    const loaded = openCheckpoint(sealRealmCheckpoint(5, r.state), 'here');
    expect(getMessage(loaded.messages, 101)!.reactions).toEqual(getMessage(r.state.messages, 101)!.reactions);
    expect(hasReactionBit(loaded, 101)).toBe(true);
    expect([...loaded.realmEmoji.values()]).toEqual([...r.state.realmEmoji.values()]);
    expect(snapshotRealm(loaded)).toEqual(snapshotRealm(r.state));
  });
});
