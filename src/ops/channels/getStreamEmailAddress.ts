import * as z from 'zod/mini';
import { accessChannelById, isAccessError } from '../../core/channels/access-channel';
import { channelEmailToken, encodeEmailAddress } from '../../core/channels/email-address';
import { errors, zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { isRealmAdmin } from '../../core/permissions/roles';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/streams/{stream_id}/email_address — https://zulip.com/api/get-stream-email-address
 * (zerver/views/streams.py `get_stream_email_address`, zerver/lib/email_mirror_helpers.py)
 *
 * The address that posts to the channel through the email gateway, always in its `show-sender`
 * form. The channel needs content access (`access_stream_by_id`: `Invalid channel ID` otherwise).
 * `sender_id`, who the mails will appear to come from: the Email Gateway bot (the default), the
 * caller, or a bot the caller may administer (its owner, or an organization administrator;
 * Zulip's `access_bot_by_id`: `No such bot`, then `Insufficient permission`). The token is
 * derived, not stored (src/core/channels/email-address.ts); with no gateway configured
 * (`server.email_gateway_pattern` "") the address is "", as Zulip answers.
 *
 * @example
 * ```ts
 * const r = getStreamEmailAddress(realm, { userId: 4 }, { stream_id: 1 });
 * expect(r.body).toEqual({ result: 'success', msg: '', email: '' });
 * ```
 */
export const getStreamEmailAddress = defineOperation({
  name: 'getStreamEmailAddress',
  method: 'GET',
  path: '/streams/{stream_id}/email_address',
  operationId: 'get-stream-email-address',
  pathParams: ['stream_id'],
  params: [
    param('stream_id', z.int().check(z.nonnegative()), { required: true }),
    param('sender_id', z.int().check(z.nonnegative())),
  ],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    const channel = accessChannelById(state, me, params.stream_id);
    if (isAccessError(channel)) return failure(state, channel);

    const gatewayBot = state.server.email_gateway_bot_id;
    let senderId = gatewayBot;
    if (params.sender_id !== undefined && params.sender_id !== gatewayBot) {
      if (params.sender_id !== me.user_id) {
        const bot = state.users.get(params.sender_id);
        if (bot === undefined || !bot.is_bot) return failure(state, zulipError('No such bot'));
        if (bot.bot_owner_id !== me.user_id && !isRealmAdmin(me))
          return failure(state, errors.insufficientPermission());
      }
      senderId = params.sender_id;
    }
    const token = channelEmailToken(state, channel, me.user_id, senderId);
    const email = encodeEmailAddress(state.server.email_gateway_pattern, channel.name, token, true);
    return success(state, { ignored, data: { email } });
  },
});
