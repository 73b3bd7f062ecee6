import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { to, type AddressedEvent } from '../../core/events';
import { defineOperation, returns } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import {
  legacyEventPresence,
  modernPresence,
  nextPresence,
  PRESENCE_SETTINGS,
  realmPresences,
  type PresenceRow,
  type PresenceView,
} from '../../core/presence/presence';
import { failure, success } from '../../core/result';
import type { RealmState } from '../../core/state';
import type { User } from '../../core/model/records';
import { activeUserIds } from '../../core/users/realm-users';

/**
 * POST /api/v1/users/me/presence — https://zulip.com/api/update-presence
 *
 * Zulip's `update_active_status_backend` (zerver/views/presence.py): humans only; the ping updates
 * the caller's row when `presence_enabled` (invisible mode does not), then answers every user's
 * presence unless `ping_only`. Passing `last_update_id` asks for the modern format and only the
 * rows changed since. The realm state never changes: the new row comes back as an
 * `update_presence` effect for the host's volatile presence table (docs/ARCHITECTURE.md), so a
 * ping is never a change-log record. A `presence` event goes to every active user when the row is
 * new or the user came back online, in realms of at most 100 users
 * (`USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS`).
 *
 * @example
 * ```ts
 * const r = updatePresence(realm, { userId: 4 }, { status: 'active', ping_only: true });
 * expect(r.body).toEqual({ result: 'success', msg: '' });
 * expect(r.effects[0]).toMatchObject({ type: 'update_presence' });
 * ```
 */
export const updatePresence = defineOperation({
  name: 'updatePresence',
  method: 'POST',
  path: '/users/me/presence',
  operationId: 'update-presence',
  guard: (_state, user) => (user.is_bot ? errors.notForBots() : undefined),
  returns: returns<{
    presences?: Record<string, object>;
    server_timestamp?: number;
    presence_last_update_id?: number;
  }>(),
  params: [
    param('history_limit_days', z.int()),
    param('last_update_id', z.int()),
    param('new_user_input', z.boolean()),
    param('ping_only', z.boolean()),
    param('slim_presence', z.boolean()),
    rawParam('status', z.string(), { required: true }),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const status = params.status;
    if (status !== 'active' && status !== 'idle')
      return failure(state, errors.badRequest(`Invalid status: ${status}`));
    const update = user.settings.presence_enabled
      ? nextPresence(ctx.presence, user.user_id, status, ctx.now)
      : { row: undefined, notify: false };
    const effects = update.row === undefined ? [] : [{ type: 'update_presence' as const, row: update.row }];
    const current = update.row ?? ctx.presence.get(user.user_id);
    const events =
      update.notify && current !== undefined ? presenceEvents(state, user, current, ctx.now) : [];
    if (params.ping_only === true) return success(state, { ignored, events, effects });
    // The answer includes the caller's own new row (Zulip commits it before reading).
    const view = update.row === undefined ? ctx.presence : withRow(ctx.presence, update.row);
    const { presences, lastUpdateId } = realmPresences(state, view, {
      slim: params.last_update_id !== undefined || params.slim_presence === true,
      lastUpdateId: params.last_update_id,
      historyLimitDays: params.history_limit_days,
      now: ctx.now,
    });
    const data = { presences, server_timestamp: ctx.now, presence_last_update_id: lastUpdateId };
    return success(state, { data, ignored, events, effects });
  },
});

/**
 * `send_presence_changed`: the legacy event (the mobile app's format); `modern_presence` is for
 * event-queue hosts, which give clients with `simplified_presence_events` the modern
 * `{presences: {id: …}}` form and strip it for everyone else (src/host/presence-events.ts).
 */
function presenceEvents(state: RealmState, user: User, row: PresenceRow, now: number): AddressedEvent[] {
  // Checked before listing the recipients: a large realm pays nothing per new row.
  if (!atMostActiveUsers(state, PRESENCE_SETTINGS.userLimitForEvents)) return [];
  const users = activeUserIds(state);
  const event = {
    type: 'presence' as const,
    email: user.email,
    user_id: user.user_id,
    server_timestamp: now,
    presence: { website: legacyEventPresence(row, user) },
    modern_presence: modernPresence(row, user),
  };
  return [to(users, event)];
}

function withRow(view: PresenceView, row: PresenceRow): PresenceView {
  return {
    get: (id) => (id === row.user_id ? row : view.get(id)),
    *values() {
      for (const r of view.values()) if (r.user_id !== row.user_id) yield r;
      yield row;
    },
    *valuesSince(id) {
      for (const r of view.valuesSince ? view.valuesSince(id) : view.values())
        if (r.user_id !== row.user_id && r.last_update_id > id) yield r;
      if (row.last_update_id > id) yield row;
    },
    lastUpdateId: Math.max(view.lastUpdateId, row.last_update_id),
  };
}

function atMostActiveUsers(state: RealmState, limit: number): boolean {
  if (state.users.size <= limit) return true;
  let n = 0;
  for (const u of state.users.values()) if (u.is_active && ++n > limit) return false;
  return true;
}
