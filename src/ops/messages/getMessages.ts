import * as z from 'zod/mini';
import { errors, zulipError } from '../../core/errors';
import { renderMarkdown } from '../../core/markdown';
import { decode, MessageCursor } from '../../core/messages/store';
import { escapeHtmlTopic, highlightHtml } from '../../core/search/highlight';
import { narrowSearchLexemes } from '../../core/search/query';
import { defineOperation } from '../../core/operation';
import { accepts, param, rawParam, zulipIssue } from '../../core/params';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import { buildNarrow, firstUnreadAnchor, NEWEST, selectWindow } from '../../narrow';
import { parseNarrow } from '../../narrow/terms';
import { channelDictAt, DictCache, messageDict, type DictOptions } from './message-dict';
import { renameGeneralChat, resolveAnchor, resolveWithOperator, type NarrowInput } from './narrow-request';

/** Zulip's MAX_MESSAGES_PER_FETCH. */
export const MAX_MESSAGES_PER_FETCH = 5000;

const narrowSchema = accepts<readonly NarrowInput[] | null>()(
  z.pipe(
    z.unknown(),
    z.transform((value, ctx) => {
      if (value === null) return null;
      const r = parseNarrow(value);
      if (!r.ok) {
        zulipIssue(ctx, r.msg);
        return z.NEVER;
      }
      return r.terms;
    }),
  ),
);

/**
 * GET /api/v1/messages — https://zulip.com/api/get-messages
 *
 * Zulip's `get_messages_backend` in its order: `message_ids` excludes the range parameters
 * (INCOMPATIBLE combination), the anchor (`Missing 'anchor' argument.`, `Invalid anchor`; ids,
 * `newest`, `oldest`, `first_unread`, the legacy `use_first_unread_anchor`), `with:<message id>`
 * resolved to the message's conversation (`clean_narrow_for_message_fetch`), at most 5000 messages,
 * the anchor excluded only at an end of the range, then the narrow (the engine's every operator,
 * history from channels the user may read as Zulip's `include_history`). Each message comes in
 * Zulip's shape with this user's flags (`read`+`historical` for a message without a row).
 *
 * The answer is read-only: arrays that are the same for many messages (the `flags` of one bit
 * pattern, an empty `topic_links`, `submessages` or `reactions`) are one frozen array shared by
 * every dict and every answer, and a message's reactions are the store's own frozen list (the
 * same for every answer until they change), so a caller that wants to change a dict copies it first.
 *
 * Differences (docs/differences/messages.md): spectators (web-public access without a login) are
 * not served; `history_limited` is always false (no plan limits). Search results carry
 * `match_content`/`match_subject` with Zulip's highlight spans (core/search/highlight.ts).
 *
 * @example
 * ```ts
 * const r = getMessages(realm, { userId: 4 }, { anchor: 'newest', num_before: 20, num_after: 0,
 *   narrow: [{ operator: 'channel', operand: 'Verona' }] });
 * expect(r.body).toMatchObject({ found_newest: true, messages: expect.any(Array) });
 * ```
 */
export const getMessages = defineOperation({
  name: 'getMessages',
  method: 'GET',
  path: '/messages',
  operationId: 'get-messages',
  params: [
    param('allow_empty_topic_name', z.boolean()),
    rawParam('anchor', z.union([z.string(), z.int()])),
    param('apply_markdown', z.boolean()),
    param('client_gravatar', z.boolean()),
    param('message_ids', z.array(z.int().check(z.nonnegative()))),
    param('include_anchor', z.boolean()),
    param('narrow', narrowSchema),
    param('num_after', z.int().check(z.nonnegative())),
    param('num_before', z.int().check(z.nonnegative())),
    param('use_first_unread_anchor', z.boolean()),
  ],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const numBefore = params.num_before ?? 0;
    const numAfter = params.num_after ?? 0;
    const ids = params.message_ids;
    const firstUnread = params.use_first_unread_anchor ?? false;
    if ((numBefore > 0 || numAfter > 0 || params.anchor !== undefined || firstUnread) && ids !== undefined)
      return failure(
        state,
        errors.unsupportedCombination([
          'num_before',
          'num_after',
          'anchor',
          'message_ids',
          'include_anchor',
          'use_first_unread_anchor',
        ]),
      );
    let anchor: number | null = null;
    if (ids === undefined && !firstUnread) {
      if (params.anchor === undefined) return failure(state, zulipError("Missing 'anchor' argument."));
      const parsed = resolveAnchor(params.anchor);
      if (parsed === undefined) return failure(state, zulipError('Invalid anchor'));
      anchor = parsed;
    }
    // `clean_narrow_for_message_fetch`, between the anchor and the size checks as in Zulip.
    const terms = resolveWithOperator(state, me, renameGeneralChat(params.narrow ?? []));
    if (!Array.isArray(terms)) return failure(state, terms);
    const requested = ids !== undefined ? ids.length : numBefore + numAfter;
    if (requested > MAX_MESSAGES_PER_FETCH)
      return failure(state, zulipError(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`));
    const includeAnchor = ids !== undefined ? false : (params.include_anchor ?? true);
    if (numBefore > 0 && numAfter > 0 && !includeAnchor)
      return failure(state, zulipError('The anchor can only be excluded at an end of the range'));
    const built = buildNarrow(state, me, terms);
    if (!built.ok) return failure(state, built.error);
    const plan = built.plan;
    const opts: DictOptions = {
      applyMarkdown: params.apply_markdown ?? true,
      clientGravatar: params.client_gravatar ?? true,
      allowEmptyTopicName: params.allow_empty_topic_name ?? false,
      viewer: me,
    };
    const search = narrowSearchLexemes(params.narrow ?? []);
    const cache = new DictCache(state, opts.clientGravatar, me);
    // Windows are ascending: the cursor steps from one message to the next instead of searching.
    const cursor = new MessageCursor(state.messages);
    if (ids !== undefined) {
      const found = [...new Set(ids)]
        .sort((a, b) => a - b)
        .flatMap((id) => {
          const one = selectWindow(plan, id, 0, 0, true);
          return one.ids.length === 1 ? [[id, one.flags[0]!] as const] : [];
        });
      return success(state, {
        ignored,
        data: {
          messages: found.map(([id, f]) => dictFor(state, cursor, id, f, opts, search, cache)),
          history_limited: false,
          found_anchor: false,
          found_oldest: false,
          found_newest: false,
        },
      });
    }
    const at = anchor ?? firstUnreadAnchor(plan);
    // Views of the narrow engine's scratch buffers (no three window-sized copies): the loop below
    // reads them before anything could select again.
    const selection = selectWindow(plan, at, numBefore, numAfter, includeAnchor, true);
    const messages: Array<Record<string, unknown>> = [];
    let foundAnchor = false;
    for (let k = 0; k < selection.ids.length; k++) {
      const id = selection.ids[k]!;
      if (id === at) foundAnchor = true;
      messages.push(dictFor(state, cursor, id, selection.flags[k]!, opts, search, cache));
    }
    return success(state, {
      ignored,
      data: {
        messages,
        found_anchor: foundAnchor && includeAnchor && at > 0 && at < NEWEST,
        found_oldest: selection.foundOldest,
        found_newest: selection.foundNewest,
        history_limited: false,
        anchor: at,
      },
    });
  },
});

/** One message with this user's flags: the row's, or read+historical without a row. */
function dictFor(
  state: RealmState,
  cursor: MessageCursor,
  id: number,
  rowFlags: number,
  opts: DictOptions,
  search: ReadonlySet<string> | null,
  cache: DictCache,
): Record<string, unknown> {
  // The window holds only stored messages, so the seek always finds one.
  cursor.seek(id);
  const chunk = cursor.chunk!;
  const index = cursor.index;
  // Shared frozen flag lists: the answer's dicts are read-only (see the operation's doc comment).
  const flags = cache.flagNames(rowFlags);
  const dict =
    channelDictAt(state, chunk, index, id, opts, flags, cache) ??
    messageDict(state, decode(state.messages, chunk, index), opts, flags, cache);
  if (search !== null) {
    const html = opts.applyMarkdown ? String(dict['content']) : renderMarkdown(chunk.content[index]!);
    dict['match_content'] = highlightHtml(html, search);
    dict['match_subject'] = highlightHtml(escapeHtmlTopic(String(dict['subject'])), search);
  }
  return dict;
}
