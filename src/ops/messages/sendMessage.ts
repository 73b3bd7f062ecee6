import * as z from 'zod/mini';
import { errors, type ZulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { cutClientName, defaultReadBySender } from '../../core/messages/client-names';
import { param, rawParam } from '../../core/params';
import { failure } from '../../core/result';
import type { User } from '../../core/model/records';
import type { RealmState } from '../../core/state';
import {
  channelAddresseeTopic,
  checkChannelSend,
  checkDirectSend,
  normalizeMessageContent,
  truncateTopic,
} from '../../core/messages/send-checks';
import { stripUnicodeWhitespace } from '../../core/text/whitespace';
import { checkChannelName } from '../../core/channels/check-channel-name';
import { checkWidgetContent } from '../../core/messages/widget-content';
import { pythonStrip } from '../../core/text/whitespace';
import { zulipIssue } from '../../core/params';
import { extractPrivateRecipients, extractStreamIndicator } from './send-recipients';
import { deliverMessage, type Addressee } from './send-deliver';

/** `type`: a literal of Zulip's four spellings; anything else is "Invalid type" (test_message_send.py `test_invalid_type`). */
const sendTypeSchema = z.pipe(
  z.string(),
  z.transform((value, ctx) => {
    if (value === 'direct' || value === 'channel' || value === 'stream' || value === 'private') return value;
    zulipIssue(ctx, 'Invalid {var}');
    return z.NEVER;
  }),
);

// On the wire a plain string (maybe JSON); the library API may pass the decoded id, name or list.
const toSchema = z.union([z.string(), z.int(), z.array(z.union([z.string(), z.int()]))]);

/** Django's `escape`, which Zulip applies to a channel name it cannot find. */
function escapeHtml(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#x27;');
}

/**
 * POST /api/v1/messages — https://zulip.com/api/send-message
 *
 * Zulip's `send_message_backend` → `check_send_message` → `check_message` → `do_send_messages`,
 * in its order with its errors: the `to` formats, the addressee (missing channel, topic or
 * recipients, unknown emails or ids), the body (`normalize_body`: empty, NUL, truncation), the topic
 * (stripped, printable, `(no topic)` and the display name read as the empty topic, truncated), the
 * channel (by name or id, who may post, archived, guests, bots through their owners, new topics,
 * `topics_policy`), direct messages (access to recipients, deactivated recipients,
 * `direct_message_permission_group`, `direct_message_initiator_group`), then mentions (channel and
 * topic wildcards against `can_mention_many_users_group` above 15 subscribers or participants,
 * groups against `can_mention_group`). The send itself is in `send-deliver.ts`.
 *
 * Differences (docs/differences/messages.md): mirroring clients, forged senders and widgets are not
 * modelled (`sender` is refused as Zulip refuses it from a normal client; `forged` is refused; a
 * `widget_content` is validated as Zulip validates it, then dropped); no bot-owner notices for sends
 * to empty channels. The sending client is `client` (over HTTP the User-Agent's name when not
 * sent; a library call without one records "API"), and `read_by_sender` defaults from it as
 * Zulip's `Client.default_read_by_sender` (client-names.ts).
 *
 * @example
 * ```ts
 * const r = sendMessage(realm, { userId: 4 }, { type: 'stream', to: 'Verona', topic: 'lunch', content: 'Pizza?' }, { now });
 * expect(r.body).toMatchObject({ result: 'success', id: expect.any(Number) });
 * ```
 */
export const sendMessage = defineOperation({
  name: 'sendMessage',
  method: 'POST',
  path: '/messages',
  operationId: 'send-message',
  params: [
    // Zulip takes `client` on every request (`parse_client`); a send stores it. Over HTTP a
    // request without it gets its User-Agent's name (wire/handle.ts); a library call, "API".
    rawParam('client', z.string()),
    rawParam('forged', z.string()),
    rawParam('local_id', z.string()),
    rawParam('content', z.string(), { required: true }),
    rawParam('queue_id', z.string()),
    param('read_by_sender', z.boolean()),
    rawParam('sender', z.string()),
    rawParam('to', toSchema),
    rawParam('type', sendTypeSchema, { required: true }),
    param('time', z.number()),
    // OptionalTopic: stripped of surrounding whitespace by pydantic; `subject` is its legacy name.
    rawParam('topic', z.pipe(z.string(), z.transform(stripUnicodeWhitespace)), { alias: 'subject' }),
    rawParam('widget_content', z.string()),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const kind = params.type === 'direct' || params.type === 'private' ? 'private' : 'stream';
    let messageTo: ReadonlyArray<string | number> = [];
    if (params.to !== undefined) {
      const to = kind === 'stream' ? extractStreamIndicator(params.to) : extractPrivateRecipients(params.to);
      if (typeof to === 'object' && !Array.isArray(to)) return failure(state, to);
      messageTo = Array.isArray(to) ? to : [to as string | number];
    }
    if (params.forged === 'yes' || params.forged === 'true')
      return failure(state, errors.badRequest('User not authorized for this query'));
    if (params.sender !== undefined) return failure(state, errors.badRequest('Invalid mirrored message'));

    const addressee = buildAddressee(state, kind, messageTo, params.topic);
    if ('code' in addressee) return failure(state, addressee);
    const content = normalizeMessageContent(state, params.content);
    if (typeof content !== 'string') return failure(state, content);
    const target = checkAddressee(state, user, addressee);
    if ('code' in target) return failure(state, target);
    // After the addressee, before mentions, as in `check_message`.
    const widget =
      params.widget_content === undefined ? undefined : checkWidgetContent(params.widget_content);
    if (widget) return failure(state, widget);
    const client = params.client === undefined ? undefined : cutClientName(params.client);
    return deliverMessage(state, user, target, content, {
      now: ctx.now,
      // `Client.default_read_by_sender`: only a full-UI client's message is read by its sender.
      readBySender: params.read_by_sender ?? (client !== undefined && defaultReadBySender(client)),
      client,
      localId: params.local_id,
      queueId: params.queue_id,
      ignored,
    });
  },
});

type Built =
  | { readonly kind: 'stream'; readonly channel: string | number; readonly topic: string }
  | { readonly kind: 'private'; readonly users: readonly User[] };

/** `Addressee.legacy_build`: the channel and topic, or the recipients looked up by email or id. */
function buildAddressee(
  state: RealmState,
  kind: 'stream' | 'private',
  to: ReadonlyArray<string | number>,
  topic: string | undefined,
): Built | ZulipError {
  if (kind === 'stream') {
    const channel = to[0];
    if (channel === undefined) return errors.badRequest('Missing channel');
    if (topic === undefined) return errors.badRequest('Missing topic');
    const name = channelAddresseeTopic(topic);
    if (typeof name !== 'string') return name;
    return { kind, channel, topic: name };
  }
  if (to.length === 0) return errors.badRequest('Message must have recipients');
  const users: User[] = [];
  for (const item of to) {
    if (typeof item === 'string') {
      const id = state.usersByEmail.get(item.toLowerCase());
      const u = id === undefined ? undefined : state.users.get(id);
      if (u === undefined) return errors.badRequest(`Invalid email '${item}'`);
      users.push(u);
    } else {
      const u = state.users.get(item);
      if (u === undefined) return errors.badRequest(`Invalid user ID ${item}`);
      users.push(u);
    }
  }
  return { kind, users };
}

/** The rest of `check_message` for the addressee: the channel's rules or the direct-message rules. */
function checkAddressee(state: RealmState, sender: User, built: Built): Addressee | ZulipError {
  if (built.kind === 'stream') {
    const topic = truncateTopic(state, built.topic);
    let streamId: number;
    if (typeof built.channel === 'string') {
      // `validate_stream_name_with_pm_notification`: the name is checked before it is looked up.
      const name = pythonStrip(built.channel);
      const invalid = checkChannelName(name, state.server.max_stream_name_length);
      if (invalid) return invalid;
      const id = state.channelsByName.get(name.toLowerCase());
      if (id === undefined) return errors.channelDoesNotExistByName(escapeHtml(name));
      streamId = id;
    } else streamId = built.channel;
    const refused = checkChannelSend(state, sender, streamId, topic);
    if (refused) return refused;
    return { kind: 'stream', channel: state.channels.get(streamId)!, topic };
  }
  // Zulip's recipient list is a set of profiles: a repeated user (by email and id) counts once.
  const ids = [...new Set(built.users.map((u) => u.user_id))];
  const refused = checkDirectSend(state, sender, ids);
  if (refused) return refused;
  return { kind: 'private', participants: [...new Set([sender.user_id, ...ids])].sort((a, b) => a - b) };
}
