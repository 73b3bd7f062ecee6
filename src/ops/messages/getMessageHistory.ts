import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { renderMarkdown } from '../../core/markdown';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../core/model/realm';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';
import { highlightHtmlDifferences } from '../../core/text/html-diff';
import { accessMessage } from './message-access';

type Entry = Record<string, unknown>;

/**
 * GET /api/v1/messages/{message_id}/history — https://zulip.com/api/get-message-history
 *
 * Zulip's `get_message_edit_history` with `fill_edit_history_entries`: refused when the realm's
 * `message_edit_history_visibility_policy` is `none`; the message as `access_message` finds it;
 * then, oldest first, the original message and one entry per edit, each with the topic and
 * content as they were after it. With the `moves` policy only moves are listed (and no content
 * changes). `content_html_diff` is Zulip's word-level `highlight_html_differences`
 * (src/core/text/html-diff.ts).
 *
 * @example
 * ```ts
 * const r = getMessageHistory(realm, { userId: 4 }, { message_id: 145 });
 * expect(r.body).toMatchObject({ message_history: [expect.objectContaining({ user_id: 4 })] });
 * ```
 */
export const getMessageHistory = defineOperation({
  name: 'getMessageHistory',
  method: 'GET',
  path: '/messages/{message_id}/history',
  operationId: 'get-message-history',
  pathParams: ['message_id'],
  params: [
    param('allow_empty_topic_name', z.boolean()),
    param('message_id', z.int().check(z.nonnegative()), { required: true }),
  ],
  handler: ({ state, user, params, ignored }) => {
    const policy = state.realm.message_edit_history_visibility_policy;
    if (policy === 'none')
      return failure(state, zulipError('Message edit history is disabled in this organization'));
    const accessed = accessMessage(state, user!, params.message_id, false);
    if (accessed === undefined) return failure(state, zulipError('Invalid message(s)'));
    const { record } = accessed;
    const isChannel = record.stream_id !== null;
    const allowEmpty = params.allow_empty_topic_name ?? false;
    const topicName = (t: string) =>
      !isChannel ? '' : t === '' && !allowEmpty ? EMPTY_TOPIC_DISPLAY_NAME : t;
    let content = record.content;
    let rendered = renderMarkdown(record.content);
    let topic = topicName(record.topic);
    const out: Entry[] = [];
    for (const e of state.messages.edits.get(record.id)?.history ?? []) {
      const entry: Entry = {
        content,
        rendered_content: rendered,
        timestamp: e.timestamp,
        topic,
        user_id: e.user_id,
      };
      if (e.prev_topic !== undefined) {
        topic = topicName(e.prev_topic);
        entry['prev_topic'] = topic;
      }
      if (e.prev_content !== undefined) {
        const prevRendered = e.prev_rendered_content ?? renderMarkdown(e.prev_content);
        entry['prev_content'] = e.prev_content;
        entry['prev_rendered_content'] = prevRendered;
        entry['content_html_diff'] = highlightHtmlDifferences(prevRendered, rendered);
        content = e.prev_content;
        rendered = prevRendered;
      }
      if (e.prev_stream !== undefined) {
        entry['prev_stream'] = e.prev_stream;
        entry['stream'] = e.stream;
      }
      out.push(entry);
    }
    out.push({
      content,
      rendered_content: rendered,
      timestamp: record.timestamp,
      topic,
      user_id: record.sender_id,
    });
    const visible =
      policy === 'all'
        ? out
        : out
            .filter((e, i) => i === out.length - 1 || 'prev_topic' in e || 'prev_stream' in e)
            .map(withoutContentChange);
    return success(state, { ignored, data: { message_history: visible.reverse() } });
  },
});

/** A `moves`-policy entry: no trace of content changes. */
function withoutContentChange(e: Entry): Entry {
  const { prev_content: _c, prev_rendered_content: _r, content_html_diff: _d, ...rest } = e;
  return rest;
}
