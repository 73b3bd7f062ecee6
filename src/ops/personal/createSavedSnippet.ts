import * as z from 'zod/mini';
import { errors, type ZulipError } from '../../core/errors';
import { to } from '../../core/events';
import type { SavedSnippet } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { accepts, codePointLength, rawParam } from '../../core/params';
import { edit, failure, success } from '../../core/result';
import { pythonStrip, stripUnicodeWhitespace } from '../../core/text/whitespace';

/** Zulip's `SavedSnippet.MAX_TITLE_LENGTH`. */
const MAX_TITLE_LENGTH = 60;

/**
 * POST /api/v1/saved_snippets — https://zulip.com/api/create-saved-snippet
 *
 * Creates a reusable message snippet owned by the caller (any role). `content` is declared before
 * `title` in Zulip, so its errors win. Both are stripped, then must be 1..max code points
 * (content: the server's max message length, title: 60); Zulip strips once more with Python's
 * `str.strip()` before saving, which only matters for U+001C..U+001F at the edges.
 *
 * Differs from Zulip: ids come from `maxKey() + 1` of this realm's snippets (Zulip's are
 * server-wide).
 *
 * @example
 * ```ts
 * const r = createSavedSnippet(realm, { userId: 4 }, { title: 'Standup', content: 'Yesterday: … Today: …' }, { now });
 * expect(r.status).toBe(200);
 * expect(typeof r.body['saved_snippet_id']).toBe('number');
 * ```
 */
export const createSavedSnippet = defineOperation({
  name: 'createSavedSnippet',
  method: 'POST',
  path: '/saved_snippets',
  operationId: 'create-saved-snippet',
  // Only presence is checked by the parser: the content limit is a server setting (in the state),
  // so both values are validated in the handler, content first, as Zulip's parser would.
  params: [
    rawParam('content', accepts<string>()(z.unknown()), { required: true }),
    rawParam('title', accepts<string>()(z.unknown())),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const content = checkText('content', params.content, state.server.max_message_length);
    if (typeof content !== 'string') return failure(state, content);
    if (params.title === undefined) return failure(state, errors.missingArgument('title'));
    const title = checkText('title', params.title, MAX_TITLE_LENGTH);
    if (typeof title !== 'string') return failure(state, title);

    const snippet: SavedSnippet = Object.freeze({
      id: state.savedSnippets.maxKey() + 1,
      user_id: user.user_id,
      title: pythonStrip(title),
      content: pythonStrip(content),
      date_created: Math.floor(ctx.now),
    });
    const next = edit(state, (draft) => {
      draft.savedSnippets = draft.savedSnippets.set(snippet.id, snippet);
    });
    const { user_id: _owner, ...wire } = snippet;
    const event = { type: 'saved_snippets' as const, op: 'add' as const, saved_snippet: wire };
    return success(next, {
      data: { saved_snippet_id: snippet.id },
      ignored,
      events: [to([user.user_id], event)],
    });
  },
});

/** `StringConstraints(strip_whitespace=True, min_length=1, max_length=max)`: the stripped value or the error. */
function checkText(name: string, value: unknown, max: number): string | ZulipError {
  if (typeof value !== 'string') return errors.badRequest(`${name} is not a string`);
  const stripped = stripUnicodeWhitespace(value);
  if (stripped.length === 0) return errors.badRequest(`${name} cannot be blank`);
  if (codePointLength(stripped) > max)
    return errors.badRequest(`${name} is too long (limit: ${max} characters)`);
  return stripped;
}
