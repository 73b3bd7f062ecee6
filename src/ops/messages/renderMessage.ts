import * as z from 'zod/mini';
import { renderMarkdown } from '../../core/markdown';
import { defineOperation } from '../../core/operation';
import { rawParam } from '../../core/params';
import { success } from '../../core/result';

/**
 * POST /api/v1/messages/render — https://zulip.com/api/render-message (zerver/views/message_send.py
 * `render_message_backend`)
 *
 * Renders `content` to HTML as a message sent now would be rendered, without sending it. The
 * engine's Markdown is the subset `src/core/markdown.ts` documents (paragraphs, emphasis, code
 * spans, links); everything else comes back escaped — the same subset messages get, so a preview
 * matches what GET /messages will show. Nothing is stored, no events.
 *
 * @example
 * ```ts
 * const r = renderMessage(realm, { userId: 4 }, { content: '**foo**' });
 * expect(r.body).toEqual({ result: 'success', msg: '', rendered: '<p><strong>foo</strong></p>' });
 * ```
 */
export const renderMessage = defineOperation({
  name: 'renderMessage',
  method: 'POST',
  path: '/messages/render',
  operationId: 'render-message',
  params: [rawParam('content', z.string(), { required: true })],
  handler: ({ state, params, ignored }) =>
    success(state, { ignored, data: { rendered: renderMarkdown(params.content) } }),
});
