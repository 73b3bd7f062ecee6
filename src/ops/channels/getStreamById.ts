import * as z from 'zod/mini';
import { accessChannelById, isAccessError } from '../../core/channels/access-channel';
import { streamToDict } from '../../core/channels/stream-dict';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/streams/{stream_id} — https://zulip.com/api/get-stream-by-id (zerver/views/streams.py
 * `get_stream_backend`)
 *
 * One channel as GET /streams lists it. Zulip looks the channel up with
 * `require_content_access=False`: content access, or for a private channel metadata access
 * (organization administrators, channel administrators); anything else — including a channel
 * that does not exist — is `Invalid channel ID`. Archived channels are found.
 *
 * @example
 * ```ts
 * const r = getStreamById(realm, { userId: 4 }, { stream_id: 1 });
 * expect(r.body).toMatchObject({ stream: { stream_id: 1, name: 'Verona' } });
 * ```
 */
export const getStreamById = defineOperation({
  name: 'getStreamById',
  method: 'GET',
  path: '/streams/{stream_id}',
  operationId: 'get-stream-by-id',
  pathParams: ['stream_id'],
  params: [param('stream_id', z.int(), { required: true })],
  handler: ({ state, user, params, ctx, ignored }) => {
    const channel = accessChannelById(state, user!, params.stream_id, true);
    if (isAccessError(channel)) return failure(state, channel);
    return success(state, { ignored, data: { stream: streamToDict(state, channel, ctx.now) } });
  },
});
