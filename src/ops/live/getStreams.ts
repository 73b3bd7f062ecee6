import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { streamsFor, type StreamsQuery } from '../../core/register/channels';
import { isGuest } from '../../core/permissions/roles';
import { failure, success } from '../../core/result';

/**
 * GET /api/v1/streams — https://zulip.com/api/get-streams
 *
 * The channels the caller asks for and may see (Zulip's `do_get_streams`): public (not for guests)
 * and subscribed by default; `include_web_public`, `include_default`, `include_owner_subscribed`
 * (bots), `include_all` (every channel one has metadata access to; `include_all_active` is its
 * old name) and `exclude_archived` (default true). By name, in Python's code-point order (Zulip sorts by name).
 *
 * @example
 * ```ts
 * const r = getStreams(realm, { userId: 4 }, {});
 * expect(r.body['streams']).toContainEqual(expect.objectContaining({ name: 'Verona' }));
 * ```
 */
export const getStreams = defineOperation({
  name: 'getStreams',
  method: 'GET',
  path: '/streams',
  operationId: 'get-streams',
  params: [
    param('include_public', z.boolean()),
    param('include_web_public', z.boolean()),
    param('include_subscribed', z.boolean()),
    param('exclude_archived', z.boolean()),
    param('include_all_active', z.boolean()),
    param('include_all', z.boolean()),
    param('include_default', z.boolean()),
    param('include_owner_subscribed', z.boolean()),
    param('include_can_access_content', z.boolean()),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const all = params.include_all ?? params.include_all_active ?? false;
    // Since feature level 356 `include_all` is open to everyone (it was admins-only); guests
    // never get public channels they are not subscribed to.
    const query: StreamsQuery = {
      ...params,
      include_all: all,
      include_public: (params.include_public ?? true) && !isGuest(user),
    };
    return success(state, { data: { streams: streamsFor(state, user, query, ctx.now) }, ignored });
  },
});
