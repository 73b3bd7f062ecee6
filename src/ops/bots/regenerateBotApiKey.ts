import * as z from 'zod/mini';
import { generateApiKey } from '../../core/context';
import { errors, zulipError } from '../../core/errors';
import { to } from '../../core/events';
import type { Effect } from '../../core/effects';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { isGuest, isRealmAdmin } from '../../core/permissions/roles';
import { edit, editRecord, failure, success } from '../../core/result';
import { putUser } from '../../core/state-edit';
import { humanAdminIds } from '../../core/users/realm-users';

/**
 * POST /api/v1/bots/{bot_id}/api_key/regenerate — https://zulip.com/api/regenerate-bot-api-key
 *
 * A bot's owner, or an organization administrator, replaces the bot's API key with 32 fresh
 * characters from the context's random source; the old key stops authenticating at once. The
 * `realm_bot` update event carrying the new key goes to the realm's active human administrators
 * and the bot's owner. The bot's push device registrations are dropped, as Zulip does.
 *
 * Differences from Zulip: the realm state has no bot default channels and no "can create users"
 * bot permission, so every bot counts as public (the event never narrows to the owner alone) and
 * the owner-only check for user-creating bots never applies. No audit log is kept.
 * See docs/differences/users.md.
 *
 * @example
 * ```ts
 * // Hamlet owns bot 11; the new key comes from the context's random source.
 * const r = regenerateBotApiKey(realm, { userId: 4 }, { bot_id: 11 }, { now, random: seededRandom(7) });
 * expect(r.body['api_key']).toMatch(/^[A-Za-z0-9]{32}$/);
 * expect(r.state.users.get(11)?.api_key).toBe(r.body['api_key']);
 * ```
 */
export const regenerateBotApiKey = defineOperation({
  name: 'regenerateBotApiKey',
  method: 'POST',
  path: '/bots/{bot_id}/api_key/regenerate',
  operationId: 'regenerate-bot-api-key',
  pathParams: ['bot_id'],
  // Zulip's require_member_or_admin: guests first, then bots.
  guard: (_state, user) =>
    isGuest(user) ? errors.notForGuests() : user.is_bot ? errors.notForBots() : undefined,
  params: [param('bot_id', z.int(), { required: true })],
  handler: ({ state, user, params, ctx, ignored }) => {
    const me = user!;
    const bot = state.users.get(params.bot_id);
    if (bot === undefined || !bot.is_bot) return failure(state, zulipError('No such bot'));
    if (bot.bot_owner_id !== me.user_id && !isRealmAdmin(me))
      return failure(state, errors.insufficientPermission());

    let apiKey = generateApiKey(ctx.random);
    while (state.usersByApiKey.has(apiKey)) apiKey = generateApiKey(ctx.random);
    const updated = editRecord(bot, (d) => {
      d.api_key = apiKey;
    });
    const devices = state.pushDevices.get(bot.user_id) ?? [];
    const next = edit(state, (draft) => {
      putUser(draft, updated);
      if (devices.length > 0) draft.pushDevices = draft.pushDevices.delete(bot.user_id);
    });
    const effects: Effect[] =
      state.server.push_notifications === 'bouncer'
        ? devices
            .filter((d) => d.registered_with_bouncer)
            .map((d) => ({
              type: 'unregister_push_device',
              user_id: bot.user_id,
              kind: d.kind,
              token: d.token,
            }))
        : [];
    const recipients = humanAdminIds(state);
    if (bot.bot_owner_id !== null) recipients.push(bot.bot_owner_id);
    const event = {
      type: 'realm_bot' as const,
      op: 'update' as const,
      bot: { user_id: bot.user_id, api_key: apiKey },
    };
    return success(next, { data: { api_key: apiKey }, ignored, events: [to(recipients, event)], effects });
  },
});
