import * as z from 'zod/mini';
import { accessChannelById, isAccessError } from '../../core/channels/access-channel';
import { topicHistory } from '../../core/channels/topic-history';
import { errors, zulipError } from '../../core/errors';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../core/model/realm';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';

/**
 * GET /api/v1/users/me/{stream_id}/topics — https://zulip.com/api/get-stream-topics
 * (zerver/views/streams.py `get_topics_backend`, zerver/lib/topic.py `get_topic_history_for_stream`)
 *
 * A channel's topics, `{name, max_id}`, newest first by `max_id` (the topic's latest message id;
 * topics differing only in case merged, named as their latest message spells them). A user goes
 * through `access_stream_by_id` (`Invalid channel ID`); with history public to subscribers every
 * message counts, otherwise only messages the user holds a row for (Zulip's join on
 * UserMessage). A spectator (no credentials) may ask about a web-public channel when the realm
 * allows spectators (`access_web_public_stream`: `Invalid channel ID` for any other channel);
 * otherwise 401. The empty topic is named "general chat" unless `allow_empty_topic_name`.
 *
 * @example
 * ```ts
 * const r = getStreamTopics(realm, { userId: 4 }, { stream_id: 1 });
 * expect(r.body).toMatchObject({ topics: [{ name: 'general chat', max_id: 156 }, { name: 'weather', max_id: 145 }, { name: 'lunch', max_id: 134 }] });
 * ```
 */
export const getStreamTopics = defineOperation({
  name: 'getStreamTopics',
  method: 'GET',
  path: '/users/me/{stream_id}/topics',
  operationId: 'get-stream-topics',
  pathParams: ['stream_id'],
  allowAnonymous: true,
  params: [
    param('stream_id', z.int().check(z.nonnegative()), { required: true }),
    param('allow_empty_topic_name', z.boolean()),
  ],
  handler: ({ state, user, params, ignored }) => {
    let history;
    if (user === null) {
      if (!spectatorsAllowed(state)) return failure(state, notLoggedIn());
      const channel = state.channels.get(params.stream_id);
      if (channel === undefined || !channel.is_web_public) return failure(state, errors.invalidChannelId());
      history = topicHistory(state.messages, channel.stream_id, true, undefined);
    } else {
      const channel = accessChannelById(state, user, params.stream_id);
      if (isAccessError(channel)) return failure(state, channel);
      const rows = state.messages.rows.get(user.user_id);
      history = topicHistory(state.messages, channel.stream_id, channel.history_public_to_subscribers, rows);
    }
    const topics =
      params.allow_empty_topic_name === true
        ? history
        : history.map((t) => (t.name === '' ? { ...t, name: EMPTY_TOPIC_DISPLAY_NAME } : t));
    return success(state, { ignored, data: { topics } });
  },
});

/** Zulip's MissingAuthenticationError for an endpoint spectators may use when the realm has none. */
const notLoggedIn = () =>
  zulipError('Not logged in: API authentication or user session required', 'UNAUTHENTICATED_USER', 401);

/** Whether the realm admits spectators (Zulip's `allow_web_public_streams_access`). */
function spectatorsAllowed(state: RealmState): boolean {
  if (!state.server.web_public_streams_enabled || !state.realm.enable_spectator_access) return false;
  for (const c of state.channels.values()) if (c.is_web_public && !c.is_archived) return true;
  return false;
}
