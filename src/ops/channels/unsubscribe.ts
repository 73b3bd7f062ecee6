import { castDraft } from 'immer';
import * as z from 'zod/mini';
import { checkChannelName } from '../../core/channels/check-channel-name';
import { errors, zulipError, type ZulipError } from '../../core/errors';
import type { AddressedEvent } from '../../core/events';
import type { Channel, User } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { accepts, param, zulipIssue } from '../../core/params';
import {
  canAdministerChannel,
  getChannelByName,
  hasMetadataAccess,
  isSubscribed,
} from '../../core/permissions/channels';
import { CHANNEL_SETTING_RULES, hasPermission } from '../../core/permissions/setting-rules';
import { isGuest, isRealmAdmin } from '../../core/permissions/roles';
import { edit, editRecord, failure, success } from '../../core/result';
import { putSubscription } from '../../core/state-edit';
import type { RealmState } from '../../core/state';
import { pythonStrip } from '../../core/text/whitespace';
import { canAccessUser } from '../../core/permissions/user-access';
import { markChannelsRead, unsubscribeEvents, type Removal } from '../../core/channels/unsubscribe-events';

export type Principals = readonly string[] | readonly number[];

/**
 * Zulip's `list[str] | list[int]` in pydantic's strict mode: a mixed or wrong list reports the
 * first union member's first error.
 */
export const principalsSchema = accepts<Principals | null>()(
  z.unknown().check(
    z.superRefine((v, ctx) => {
      if (v === null) return;
      if (!Array.isArray(v)) return zulipIssue(ctx, '{var}["list[str]"] is not a list');
      if (v.every((x) => typeof x === 'string')) return;
      if (v.every((x) => typeof x === 'number' && Number.isInteger(x))) return;
      zulipIssue(ctx, `{var}["list[str]"][${v.findIndex((x) => typeof x !== 'string')}] is not a string`);
    }),
  ) as unknown as z.ZodMiniType<Principals | null>,
);

/**
 * DELETE /api/v1/users/me/subscriptions (Zulip operationId `unsubscribe`):
 * https://zulip.com/api/unsubscribe
 *
 * Unsubscribes the caller, or the `principals`, from channels named in `subscriptions` (found
 * case-insensitively, archived and inaccessible ones included). Differences from Zulip:
 * - Zulip marks the removed users' unread messages in those channels as read later, in a queue
 *   worker; we apply it (and its `update_message_flags` events) in the same call.
 * - Where Zulip's order is a Python set's (several invalid names or principals, the `removed` list),
 *   we use the request's order (users by ascending id).
 *
 * @example
 * ```ts
 * const r = unsubscribe(realm, { userId: 4 }, { subscriptions: ['Verona'] }, { now });
 * expect(r.body).toMatchObject({ removed: ['Verona'], not_removed: [] });
 * ```
 */
export const unsubscribe = defineOperation({
  name: 'unsubscribe',
  method: 'DELETE',
  path: '/users/me/subscriptions',
  operationId: 'unsubscribe',
  params: [
    param('principals', principalsSchema),
    param('subscriptions', z.array(z.string()), { required: true }),
  ],
  handler: ({ state, user, params, ignored }) => {
    const caller = user!;
    let targets: User[] = [caller];
    let others = false;
    if (params.principals && params.principals.length > 0) {
      const resolved = resolvePrincipals(state, caller, params.principals);
      if (!Array.isArray(resolved)) return failure(state, resolved);
      targets = resolved;
      // Removing yourself or a bot you own is not "unsubscribing others".
      others = targets.some(
        (t) => t.user_id !== caller.user_id && !(t.is_bot && t.bot_owner_id === caller.user_id),
      );
    }
    const names = params.subscriptions.map(pythonStrip);
    for (const name of new Set(names)) {
      const invalid = checkChannelName(name, state.server.max_stream_name_length);
      if (invalid) return failure(state, invalid);
    }
    const found = names.map((name) => getChannelByName(state, name));
    const channels = uniqueChannels(found);
    // Zulip checks the permission over the channels that exist before reporting the missing ones.
    if (others && !canRemoveOthers(state, caller, channels))
      return failure(state, errors.insufficientPermission());
    const missing = names.filter((_, i) => found[i] === undefined);
    if (missing.length > 0)
      return failure(state, zulipError(`Channel(s) (${missing.join(', ')}) do not exist`));

    const removals: Removal[] = [];
    const notRemoved: string[] = [];
    for (const target of targets) {
      for (const channel of channels) {
        if (isSubscribed(state, channel.stream_id, target.user_id)) removals.push({ user: target, channel });
        else notRemoved.push(channel.name);
      }
    }
    const data = { removed: removals.map((r) => r.channel.name), not_removed: notRemoved };
    if (removals.length === 0) return success(state, { data, ignored });

    const unsubscribed = edit(state, (draft) => {
      for (const { user: u, channel } of removals) {
        const sub = state.subscriptions.get(channel.stream_id)!.get(u.user_id)!;
        putSubscription(
          draft,
          editRecord(sub, (d) => {
            d.active = false;
          }),
        );
      }
    });
    const events: AddressedEvent[] = unsubscribeEvents(unsubscribed, removals);
    const read = markChannelsRead(unsubscribed.messages, removals);
    const next =
      read.store === unsubscribed.messages
        ? unsubscribed
        : edit(unsubscribed, (draft) => {
            draft.messages = castDraft(read.store);
          });
    return success(next, { data, ignored, events: [...events, ...read.events] });
  },
});

/**
 * Principals by id or by API email (trimmed, case-insensitive), in request order; the first bad one
 * decides the error. Bots are allowed; deactivated users and users the caller cannot see are not.
 */
export function resolvePrincipals(
  state: RealmState,
  caller: User,
  principals: Principals,
): User[] | ZulipError {
  const out = new Map<number, User>();
  for (const principal of principals) {
    const id =
      typeof principal === 'number'
        ? principal
        : state.usersByEmail.get(pythonStrip(principal).toLowerCase());
    const target = id === undefined ? undefined : state.users.get(id);
    if (target === undefined) return zulipError('No such user');
    if (!target.is_active) return zulipError('User is deactivated');
    if (!canAccessUser(state, caller, target)) return errors.insufficientPermission();
    out.set(target.user_id, target);
  }
  return [...out.values()].sort((a, b) => a.user_id - b.user_id);
}

function uniqueChannels(found: ReadonlyArray<Channel | undefined>): Channel[] {
  const byId = new Map<number, Channel>();
  for (const c of found) if (c !== undefined && !byId.has(c.stream_id)) byId.set(c.stream_id, c);
  return [...byId.values()];
}

/**
 * Who may unsubscribe others from every one of `channels`: organization administrators; never
 * guests; channel administrators of all of them; otherwise, for each channel, metadata access and
 * membership of its `can_remove_subscribers_group`. No listed channel exists: allowed.
 */
function canRemoveOthers(state: RealmState, caller: User, channels: readonly Channel[]): boolean {
  if (channels.length === 0 || isRealmAdmin(caller)) return true;
  if (isGuest(caller)) return false;
  if (channels.every((c) => canAdministerChannel(state, caller, c))) return true;
  return channels.every(
    (c) =>
      hasMetadataAccess(state, caller, c) &&
      hasPermission(
        state,
        caller,
        CHANNEL_SETTING_RULES.can_remove_subscribers_group,
        c.can_remove_subscribers_group,
      ),
  );
}
