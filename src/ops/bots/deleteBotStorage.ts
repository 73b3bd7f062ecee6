import * as z from 'zod/mini';
import { errors, zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { edit, failure, success } from '../../core/result';

/** Zulip's BotRequiredError (FL494): 400, `PERMISSION_DENIED`. */
const notABot = () => zulipError('Must be a bot user', 'PERMISSION_DENIED');

/**
 * DELETE /api/v1/bot_storage — https://zulip.com/api/remove-bot-storage
 *
 * Deletes keys from the calling bot's key/value storage: the listed `keys` (JSON list of strings),
 * or everything when `keys` is absent or null. Bots only since FL494, refused before the
 * parameters are read. Zulip counts the stored rows matching the list and refuses when there are
 * fewer than the list's length, so an unknown key — or a key listed twice — is
 * `Key does not exist.` and nothing is deleted. `[]` deletes nothing. No events.
 *
 * A human is refused as in Zulip's `test_bot_storage_restrictions`: 400 PERMISSION_DENIED
 * `Must be a bot user`.
 *
 * @example
 * ```ts
 * // Called by the bot itself (user 11).
 * const r = deleteBotStorage(realm, { userId: 11 }, { keys: ['foo'] }, { now });
 * expect(r.status).toBe(200);
 * const unknownKey = deleteBotStorage(realm, { userId: 11 }, { keys: ['nope'] }, { now });
 * expect(unknownKey.body).toMatchObject({ result: 'error', msg: 'Key does not exist.' });
 * ```
 */
export const deleteBotStorage = defineOperation({
  name: 'deleteBotStorage',
  method: 'DELETE',
  path: '/bot_storage',
  operationId: 'remove-bot-storage',
  guard: (_state, user) => (user.is_bot ? undefined : notABot()),
  params: [param('keys', z.nullable(z.array(z.string())))],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const rows = state.botStorage.get(user.user_id) ?? [];
    const keys = params.keys ?? null;
    let kept: typeof rows = [];
    if (keys !== null) {
      const listed = new Set(keys);
      const matching = rows.filter((r) => listed.has(r.key)).length;
      if (matching < keys.length) return failure(state, errors.badRequest('Key does not exist.'));
      kept = rows.filter((r) => !listed.has(r.key));
    }
    if (kept.length === rows.length) return success(state, { ignored });
    const next = edit(state, (draft) => {
      draft.botStorage =
        kept.length === 0
          ? draft.botStorage.delete(user.user_id)
          : draft.botStorage.set(user.user_id, Object.freeze(kept));
    });
    return success(next, { ignored });
  },
});
