import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';
import { accessMessage } from './message-access';
import { flagNames, messageDict } from './message-dict';

/**
 * GET /api/v1/messages/{message_id} — https://zulip.com/api/get-message
 *
 * Zulip's `json_fetch_raw_message` with `access_message_and_usermessage` (`has_message_access`): a
 * direct message needs a row; a channel message needs content access to its channel (no exception
 * for web-public channels: a guest must be subscribed) and, unless its history is shared, a row. Anything else,
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
    // `access_message` → `has_message_access` (message-access.ts).
    const accessed = accessMessage(state, me, params.message_id, false);
    if (accessed === undefined) return failure(state, invalid);
    const { record, row } = accessed;
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
