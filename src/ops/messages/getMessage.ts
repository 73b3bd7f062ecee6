import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { getRowFlags } from '../../core/messages/rows';
import { getMessage as readMessage } from '../../core/messages/store';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';
import { NarrowContext } from '../../narrow';
import { flagNames, messageDict } from './message-dict';

/**
 * GET /api/v1/messages/{message_id} — https://zulip.com/api/get-message
 *
 * Zulip's `json_fetch_raw_message` with `access_message_and_usermessage`: a direct message needs a
 * row; a channel message needs a row in a channel the user may still read, or the channel's
 * history (public to the user, or shared with subscribers the user may join). Anything else,
 * missing ids included, is `Invalid message(s)`. The message comes with `client_gravatar` on (as
 * Zulip fetches it), the user's flags (`read`+`historical` without a row) and `raw_content`.
 *
 * Difference: spectators (web-public access without a login) are not served.
 *
 * @example
 * ```ts
 * const r = getMessage(realm, { userId: 4 }, { message_id: 101 });
 * expect(r.body).toMatchObject({ message: { id: 101 }, raw_content: expect.any(String) });
 * ```
 */
export const getMessage = defineOperation({
  name: 'getMessage',
  method: 'GET',
  path: '/messages/{message_id}',
  operationId: 'get-message',
  pathParams: ['message_id'],
  params: [
    param('message_id', z.int().check(z.nonnegative()), { required: true }),
    param('allow_empty_topic_name', z.boolean()),
    param('apply_markdown', z.boolean()),
  ],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const invalid = zulipError('Invalid message(s)');
    const record = readMessage(state.messages, params.message_id);
    if (record === undefined) return failure(state, invalid);
    const rows = state.messages.rows.get(me.user_id);
    const row = rows === undefined ? undefined : getRowFlags(rows, record.id);
    let ok: boolean;
    if (record.stream_id === null) ok = row !== undefined;
    else {
      const ctx = new NarrowContext(state, me);
      const channel = state.channels.get(record.stream_id);
      ok =
        (row !== undefined && ctx.rowChannelReadable(record.stream_id)) ||
        (channel !== undefined && ctx.canReadHistory(channel));
    }
    if (!ok) return failure(state, invalid);
    const flags = row === undefined ? ['read', 'historical'] : flagNames(row);
    const message = messageDict(
      state,
      record,
      {
        applyMarkdown: params.apply_markdown ?? true,
        clientGravatar: true,
        allowEmptyTopicName: params.allow_empty_topic_name ?? false,
        viewer: me,
      },
      flags,
    );
    return success(state, { ignored, data: { raw_content: record.content, message } });
  },
});
