import * as z from 'zod/mini';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { rawParam } from '../../core/params';
import { getChannelByName, hasContentAccess } from '../../core/permissions/channels';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/get_stream_id — https://zulip.com/api/get-stream-id (zerver/views/streams.py
 * `get_stream_id`, zerver/lib/streams.py `access_stream_by_name`)
 *
 * The id of the channel named `stream` (matched case-insensitively, as Zulip's `get_stream`).
 * A missing channel and one the caller has no content access to (a private channel they are not
 * subscribed to; any unsubscribed non-web-public channel for a guest) both answer
 * `Invalid channel name '…'`, so the answer never tells whether a private channel exists.
 * Archived channels are found.
 *
 * @example
 * ```ts
 * const r = getStreamId(realm, { userId: 4 }, { stream: 'Verona' });
 * expect(r.body).toEqual({ result: 'success', msg: '', stream_id: 1 });
 * ```
 */
export const getStreamId = defineOperation({
  name: 'getStreamId',
  method: 'GET',
  path: '/get_stream_id',
  operationId: 'get-stream-id',
  params: [rawParam('stream', z.string(), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const channel = getChannelByName(state, params.stream);
    if (channel === undefined || !hasContentAccess(state, me, channel))
      return failure(state, zulipError(`Invalid channel name '${params.stream}'`));
    return success(state, { ignored, data: { stream_id: channel.stream_id } });
  },
});
