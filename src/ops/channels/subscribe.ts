import * as z from 'zod/mini';
import { checkChannelName } from '../../core/channels/check-channel-name';
import {
  MAX_BULK_NEW_SUBSCRIPTION_MESSAGES,
  plannedSubscriptions,
  subscribeEvents,
  type Addition,
} from '../../core/channels/subscribe-events';
import { errors, zulipError, type ZulipError } from '../../core/errors';
import { to, type AddressedEvent } from '../../core/events';
import type { GroupSettingValue } from '../../core/model/group-setting';
import type { Channel, ChannelGroupSettingName, User } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { accepts, codePointLength, isPlainObject, param, zulipIssue } from '../../core/params';
import { canAdministerChannel, getChannelByName, hasContentAccess } from '../../core/permissions/channels';
import { isGuest, isRealmAdmin } from '../../core/permissions/roles';
import {
  CHANNEL_SETTING_RULES,
  hasPermission,
  hasRealmPermission,
} from '../../core/permissions/setting-rules';
import { groupSettingValueSchema } from '../../core/permissions/setting-update';
import { edit, failure, success } from '../../core/result';
import { putSubscription } from '../../core/state-edit';
import type { RealmState } from '../../core/state';
import { pythonStrip } from '../../core/text/whitespace';
import { activeNonGuestUserIds } from '../../core/users/realm-users';
import { SETTING_APPLY_ORDER, TOPICS_POLICIES } from './edit-channel/params';
import {
  checkCreationPermissions,
  createChannel,
  resolveGroupSettings,
  type CreationRequest,
} from './subscribe/create-channels';
import { newSubscriberNotices } from './subscribe/notices';
import { principalsSchema, resolvePrincipals } from './unsubscribe';

/** One entry of `subscriptions`: Zulip's `AddSubscriptionData`. */
export interface SubscriptionRequest {
  readonly name: string;
  readonly color?: string | undefined;
  readonly description?: string | undefined;
}

const HEX_COLOR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** A list of `{name, color?, description?}` objects, with pydantic-style messages for the first bad entry. */
const subscriptionsSchema = accepts<readonly SubscriptionRequest[]>()(
  z.unknown().check(
    z.superRefine((v, ctx) => {
      if (!Array.isArray(v)) return zulipIssue(ctx, '{var} is not a list');
      for (const [i, entry] of v.entries()) {
        const at = `{var}[${i}]`;
        if (!isPlainObject(entry)) return zulipIssue(ctx, `${at} is not a dict`);
        if (!('name' in entry)) return zulipIssue(ctx, `${at}["name"] field is missing: Field required`);
        if (typeof entry['name'] !== 'string') return zulipIssue(ctx, `${at}["name"] is not a string`);
        for (const key of ['color', 'description'] as const) {
          const value = entry[key];
          if (value !== undefined && value !== null && typeof value !== 'string')
            return zulipIssue(ctx, `${at}["${key}"] is not a string`);
        }
        const color = entry['color'];
        if (typeof color === 'string' && !HEX_COLOR.test(color))
          return zulipIssue(ctx, 'add.color is not a valid hex color code');
      }
    }),
  ) as unknown as z.ZodMiniType<readonly SubscriptionRequest[]>,
);

const settingParams = SETTING_APPLY_ORDER.map((name) => param(name, groupSettingValueSchema));

/**
 * POST /api/v1/users/me/subscriptions (Zulip operationId `subscribe`): https://zulip.com/api/subscribe
 *
 * Subscribes the caller, or the `principals`, to the channels named in `subscriptions`, creating
 * those that do not exist (Zulip's `add_subscriptions_backend`, `list_to_streams`,
 * `bulk_add_subscriptions`). Differences (docs/differences/channels-membership.md):
 * - Notification Bot's messages are effects: `post_notification_direct_message` to users someone
 *   else subscribed, `announce_new_channels` (the realm's announcements channel is not modelled),
 *   and `post_notification_message` in each new channel.
 * - Where Zulip iterates a set (names, principals), we use request order.
 *
 * @example
 * ```ts
 * const r = subscribe(realm, { userId: 4 }, { subscriptions: [{ name: 'Brand new' }] }, { now });
 * expect(r.body).toMatchObject({ subscribed: { '4': ['Brand new'] }, already_subscribed: {} });
 * expect(r.state.channelsByName.get('brand new')).toBeDefined();
 * ```
 */
export const subscribe = defineOperation({
  name: 'subscribe',
  method: 'POST',
  path: '/users/me/subscriptions',
  operationId: 'subscribe',
  params: [
    param('subscriptions', subscriptionsSchema, { required: true }),
    param('invite_only', z.boolean()),
    param('is_web_public', z.boolean()),
    param('is_default_stream', z.boolean()),
    param('history_public_to_subscribers', z.boolean()),
    param('message_retention_days', z.union([z.string(), z.int()])),
    param('topics_policy', z.enum(TOPICS_POLICIES)),
    ...settingParams,
    param('announce', z.boolean()),
    param('principals', principalsSchema),
    param('authorization_errors_fatal', z.boolean()),
    param('folder_id', z.int()),
    param('send_new_subscription_messages', z.boolean()),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    const caller = user!;
    if (isGuest(caller)) return failure(state, errors.notForGuests());
    const now = ctx.now;

    // Validation, in the view's order.
    if (params.folder_id != null && state.channelFolders.get(params.folder_id) === undefined)
      return failure(state, errors.badRequest('Invalid channel folder ID'));
    const entries = params.subscriptions;
    const retention = parseRetention(params.message_retention_days ?? 'realm_default');
    if (entries.length > 0 && 'error' in retention) return failure(state, retention.error);
    if (
      entries.length > 0 &&
      params.topics_policy !== undefined &&
      params.topics_policy !== 'inherit' &&
      !hasRealmPermission(state, caller, 'can_set_topics_policy_group')
    )
      return failure(state, errors.insufficientPermission());
    const maxDescription = state.server.max_stream_description_length;
    for (const [i, e] of entries.entries())
      if (e.description != null && codePointLength(e.description) > maxDescription)
        return failure(
          state,
          errors.badRequest(
            `subscriptions[${i}]["description"] is too long (limit: ${maxDescription} characters)`,
          ),
        );
    const principals = params.principals ?? [];
    const others = principals.length > 0 && !principals.every((p) => p === caller.user_id);

    // list_to_streams: names, then the existing channels and the ones to create.
    const wanted = entries.map((e) => ({
      name: pythonStrip(e.name),
      // Zulip keeps descriptions on one line.
      description: (e.description ?? '').replace(/\n/g, ' '),
    }));
    for (const name of new Set(wanted.map((w) => w.name))) {
      const invalid = checkChannelName(name, state.server.max_stream_name_length);
      if (invalid) return failure(state, invalid);
    }
    const existing: Channel[] = [];
    const missing: typeof wanted = [];
    const seen = new Set<string>();
    for (const w of wanted) {
      const key = w.name.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      const channel = getChannelByName(state, w.name);
      if (channel) existing.push(channel);
      else missing.push(w);
    }
    const req: CreationRequest = {
      invite_only: params.invite_only ?? false,
      is_web_public: params.is_web_public ?? false,
      is_default_stream: params.is_default_stream ?? false,
      history_public_to_subscribers: params.history_public_to_subscribers,
      message_retention_days: 'value' in retention ? retention.value : null,
      retentionRequested: 'value' in retention && retention.value !== null,
      topics_policy: params.topics_policy,
      folder_id: params.folder_id ?? null,
      settings: requestedSettings(params),
    };

    let next = state;
    const events: AddressedEvent[] = [];
    const created: Channel[] = [];
    if (missing.length > 0) {
      const resolved = resolveGroupSettings(state, caller, req);
      if ('error' in resolved) return failure(state, resolved.error);
      const settings = resolved.settings;
      const denied = checkCreationPermissions(state, caller, req);
      if (denied) return failure(state, denied);
      for (const w of missing) {
        const made = createChannel(next, caller, w.name, w.description, req, settings, now);
        next = made.state;
        created.push(made.channel);
        events.push(made.event);
      }
    }

    // filter_stream_authorization_for_adding_subscribers, on the channels that existed.
    const unauthorized = existing.filter((c) => !hasContentAccess(state, caller, c));
    if (unauthorized.length > 0 && (params.authorization_errors_fatal ?? true))
      return failure(state, zulipError(`Unable to access channel (${unauthorized[0]!.name}).`));
    const accessible = existing.filter((c) => hasContentAccess(state, caller, c));
    if (others && accessible.some((c) => !canAddSubscribers(state, caller, c)))
      return failure(state, errors.insufficientPermission());
    const channels = [...accessible, ...created];

    let targets: User[] = [caller];
    if (others) {
      const resolved = resolvePrincipals(state, caller, principals);
      if (!Array.isArray(resolved)) return failure(state, resolved);
      targets = resolved;
    }

    if (req.is_default_stream && created.length > 0) {
      next = edit(next, (draft) => {
        for (const c of created) draft.defaultChannelIds = draft.defaultChannelIds.set(c.stream_id, true);
      });
      for (let i = 0; i < created.length; i++) events.push(defaultStreamsEvent(next));
    }

    // Zulip keys requested colors by the name as sent (unstripped) and looks them up by the
    // channel's exact name.
    const colors = new Map<number, string>();
    for (const e of entries) {
      const c = getChannelByName(next, e.name);
      if (c && c.name === e.name && e.color != null) colors.set(c.stream_id, e.color);
    }
    const plan = plannedSubscriptions(next, targets, channels, colors);
    if (plan.rows.length > 0) {
      const beforeRows = next;
      next = edit(next, (draft) => {
        for (const row of plan.rows) putSubscription(draft, row);
      });
      events.push(...subscribeEvents(beforeRows, next, plan.added, now));
    }

    const subscribed = namesByUser(plan.added);
    // Feature level 397: the "subscribed you" direct messages only on request, and never in bulk.
    const wantsMessages = params.send_new_subscription_messages ?? true;
    const messagesSent =
      wantsMessages && Object.keys(subscribed).length <= MAX_BULK_NEW_SUBSCRIPTION_MESSAGES;
    const data = {
      subscribed,
      already_subscribed: namesByUser(plan.already),
      ...(params.authorization_errors_fatal === false
        ? { unauthorized: unauthorized.map((c) => c.name) }
        : {}),
      ...(wantsMessages ? { new_subscription_messages_sent: messagesSent } : {}),
    };
    const effects = newSubscriberNotices(
      caller,
      messagesSent ? plan.added : [],
      created,
      params.announce ?? false,
    );
    return success(next, { data, ignored, events, effects });
  },
});

type Retention = { readonly value: number | null } | { readonly error: ZulipError };

/** Zulip's `parse_message_retention_days`: `unlimited` → -1, `realm_default` → null, a positive integer. */
function parseRetention(value: string | number): Retention {
  if (value === 'unlimited') return { value: -1 };
  if (value === 'realm_default') return { value: null };
  if (typeof value === 'string' || value <= 0)
    return { error: errors.invalidVar('message_retention_days', value) };
  return { value };
}

function requestedSettings(params: {
  readonly [K in ChannelGroupSettingName]?: GroupSettingValue | undefined;
}): CreationRequest['settings'] {
  const out: { [K in ChannelGroupSettingName]?: GroupSettingValue } = {};
  for (const name of SETTING_APPLY_ORDER) {
    const v = params[name];
    if (v !== undefined) out[name] = v;
  }
  return out;
}

/**
 * Zulip's `get_streams_to_which_user_cannot_add_subscribers`, for one accessible channel: the realm's
 * `can_add_subscribers_group`, organization administrators, the channel's administrators, or its
 * `can_add_subscribers_group`.
 */
function canAddSubscribers(state: RealmState, user: User, channel: Channel): boolean {
  if (hasRealmPermission(state, user, 'can_add_subscribers_group') || isRealmAdmin(user)) return true;
  if (canAdministerChannel(state, user, channel)) return true;
  return hasPermission(
    state,
    user,
    CHANNEL_SETTING_RULES.can_add_subscribers_group,
    channel.can_add_subscribers_group,
  );
}

/** Zulip's `notify_default_streams`, after each channel `do_add_default_stream` adds. */
function defaultStreamsEvent(state: RealmState): AddressedEvent {
  return to(activeNonGuestUserIds(state), {
    type: 'default_streams',
    default_streams: [...state.defaultChannelIds.keys()],
  });
}

/** `{user_id: [channel names]}`, users and channels in the order they were planned. */
function namesByUser(list: readonly Addition[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const { user, channel } of list) (out[String(user.user_id)] ??= []).push(channel.name);
  return out;
}
