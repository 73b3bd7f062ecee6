import * as z from 'zod/mini';
import { renderMarkdown } from '../../core/markdown';
import { getMessage as readMessage } from '../../core/messages/store';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';
import { escapeHtmlTopic, highlightHtml } from '../../core/search/highlight';
import { narrowSearchLexemes } from '../../core/search/query';
import { buildNarrow, selectWindow } from '../../narrow';
import { renameGeneralChat, narrowSchema, resolveWithOperator } from './narrow-request';

/**
 * GET /api/v1/messages/matches_narrow — https://zulip.com/api/check-messages-match-narrow
 *
 * Zulip's `messages_in_narrow_backend`: which of `msg_ids` match the narrow, among the messages the
 * user has a row for (never history), each with `match_content` (the rendered content) and
 * `match_subject` (the HTML-escaped topic), highlighted for a search narrow exactly as GET
 * /messages highlights them, so a client can splice them into a `message` event. A message that
 * does not match, or does not exist, is left out.
 *
 * @example
 * ```ts
 * const r = checkMessagesMatchNarrow(realm, { userId: 4 }, { msg_ids: [101], narrow: [{ operator: 'search', operand: 'verona' }] });
 * expect(r.body).toMatchObject({ result: 'success', messages: expect.any(Object) });
 * ```
 */
export const checkMessagesMatchNarrow = defineOperation({
  name: 'checkMessagesMatchNarrow',
  method: 'GET',
  path: '/messages/matches_narrow',
  operationId: 'check-messages-match-narrow',
  params: [
    param('msg_ids', z.array(z.int()), { required: true }),
    param('narrow', narrowSchema, { required: true }),
  ],
  handler: ({ state, user, params, ignored }) => {
    const terms = resolveWithOperator(state, user!, renameGeneralChat(params.narrow));
    if (!Array.isArray(terms)) return failure(state, terms);
    const built = buildNarrow(state, user!, terms);
    if (!built.ok) return failure(state, built.error);
    // Zulip joins the user's UserMessage rows only: no history candidates.
    const plan = { ...built.plan, history: false };
    const search = narrowSearchLexemes(params.narrow);
    const messages: Record<string, { match_content: string; match_subject: string }> = {};
    for (const id of [...new Set(params.msg_ids)].sort((a, b) => a - b)) {
      if (selectWindow(plan, id, 0, 0, true, true).ids.length !== 1) continue;
      const record = readMessage(state.messages, id)!;
      const html = renderMarkdown(record.content);
      const topic = escapeHtmlTopic(record.topic);
      messages[String(id)] = {
        match_content: search === null ? html : highlightHtml(html, search),
        match_subject: search === null ? topic : highlightHtml(topic, search),
      };
    }
    return success(state, { ignored, data: { messages } });
  },
});
