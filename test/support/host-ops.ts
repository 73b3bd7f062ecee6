/**
 * Small state-changing operations for testing the realm handle and the stores, independent of the
 * 20 Zulip operations (several of which are still being written). They use the real machinery:
 * defineOperation, parameter parsing, edit(), the context's clock and random source.
 */
import { z } from 'zod';
import { defineOperation, type DefinedOperation } from '../../src/core/operation';
import { param } from '../../src/core/params';
import { edit, failure, success } from '../../src/core/result';
import { castDraft } from 'immer';
import { errors } from '../../src/core/errors';
import { to } from '../../src/core/events';
import { putUser } from '../../src/core/state-edit';
import { forEachRow, updateRowFlags } from '../../src/core/messages/rows';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { OPERATIONS } from '../../src/ops/index';

/** Appends `mark` to the actor's full name: a read-modify-write, so concurrent writers conflict. */
export const appendMark = defineOperation({
  name: 'testAppendMark',
  method: 'POST',
  path: '/test/append_mark',
  operationId: 'test-append-mark',
  params: [param('mark', z.string(), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    if (params.mark === '') return failure(state, errors.badRequest('Empty mark'));
    const next = { ...user!, full_name: user!.full_name + params.mark };
    const changed = edit(state, (draft) => putUser(draft, Object.freeze(next)));
    return success(changed, {
      ignored,
      events: [
        to(changed.users.keys(), {
          type: 'realm_user',
          op: 'update',
          person: { user_id: next.user_id, full_name: next.full_name },
        }),
      ],
    });
  },
});

/** Creates a saved snippet whose title comes from the random source and date from the clock. */
export const randomSnippet = defineOperation({
  name: 'testRandomSnippet',
  method: 'POST',
  path: '/test/random_snippet',
  operationId: 'test-random-snippet',
  params: [param('content', z.string(), { required: true })],
  handler: ({ state, user, params, ctx }) => {
    const id = state.savedSnippets.maxKey() + 1;
    const title = [...ctx.random.bytes(6)].map((b) => b.toString(16).padStart(2, '0')).join('');
    const snippet = Object.freeze({
      id,
      user_id: user!.user_id,
      title,
      content: params.content,
      date_created: ctx.now,
    });
    const changed = edit(state, (draft) => {
      draft.savedSnippets = draft.savedSnippets.set(id, snippet);
    });
    return success(changed, {
      data: { saved_snippet_id: id },
      events: [to([user!.user_id], { type: 'saved_snippets', op: 'add', saved_snippet: { ...snippet } })],
    });
  },
});

/** Succeeds without changing anything. */
export const noop = defineOperation({
  name: 'testNoop',
  method: 'GET',
  path: '/test/noop',
  operationId: 'test-noop',
  params: [],
  handler: ({ state }) => success(state),
});

/** Toggles the starred flag on the actor's first `count` messages (a stand-in for updateMessageFlagsForNarrow). */
export const toggleStars = defineOperation({
  name: 'testToggleStars',
  method: 'POST',
  path: '/test/toggle_stars',
  operationId: 'test-toggle-stars',
  params: [param('count', z.int(), { required: true })],
  handler: ({ state, user, params }) => {
    const rows = state.messages.rows.get(user!.user_id);
    if (!rows) return failure(state, errors.badRequest('No messages'));
    const ids: number[] = [];
    let starred = 0;
    forEachRow(rows, (id, bits) => {
      if (ids.length < params.count) {
        ids.push(id);
        if (bits & FLAG_BITS.starred) starred++;
      }
    });
    const set = starred * 2 < ids.length ? FLAG_BITS.starred : 0;
    const next = updateRowFlags(rows, ids, set, set === 0 ? FLAG_BITS.starred : 0);
    const changed = edit(state, (draft) => {
      draft.messages = castDraft(state.messages.with({ rows: state.messages.rows.set(user!.user_id, next) }));
    });
    return success(changed, {
      events: [
        to([user!.user_id], {
          type: 'update_message_flags',
          op: set ? 'add' : 'remove',
          operation: set ? 'add' : 'remove',
          flag: 'starred',
          messages: ids,
          all: false,
        }),
      ],
    });
  },
});

export const TEST_OPS: readonly DefinedOperation[] = [appendMark, randomSnippet, noop, toggleStars];
/** The 20 operations plus the test ones, for `openRealm({ operations })`. */
export const ALL_OPS: readonly DefinedOperation[] = [...OPERATIONS, ...TEST_OPS];
