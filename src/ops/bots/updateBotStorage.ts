import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import type { BotStorageEntry } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { codePointLength, param } from '../../core/params';
import { edit, failure, success } from '../../core/result';
import { botRequired, USER_STATE_SIZE_LIMIT } from './bot-required';

/**
 * PUT /api/v1/bot_storage — https://zulip.com/api/update-bot-storage (zerver/views/storage.py
 * `update_storage`, zerver/lib/bot_storage.py `set_bot_storage`)
 *
 * Stores `storage` (a JSON dict of strings) in the calling bot's key/value storage, replacing the
 * values of keys already there. Zulip measures a bot's storage as the sum of its keys' and values'
 * lengths in characters and refuses a request that would take it over `USER_STATE_SIZE_LIMIT`
 * (10,000,000): `Request exceeds storage limit by N characters. The limit is L characters.`,
 * storing nothing. Bots only (FL494), refused before the parameters are read. No events.
 *
 * @example
 * ```ts
 * const r = updateBotStorage(realm, { userId: 13 }, { storage: { count: '1' } });
 * expect(r.status).toBe(200);
 * ```
 */
export const updateBotStorage = defineOperation({
  name: 'updateBotStorage',
  method: 'PUT',
  path: '/bot_storage',
  operationId: 'update-bot-storage',
  guard: (_state, user) => botRequired(user),
  params: [param('storage', z.record(z.string(), z.string()), { required: true })],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const rows = state.botStorage.get(user.user_id) ?? [];
    const entries = Object.entries(params.storage);
    const size = (key: string, value: string) => codePointLength(key) + codePointLength(value);
    const old = new Map(rows.map((r) => [r.key, r.value]));
    let total = 0;
    for (const r of rows) total += size(r.key, r.value);
    for (const [key, value] of entries) {
      const before = old.get(key);
      total += size(key, value) - (before === undefined ? 0 : size(key, before));
    }
    if (total > USER_STATE_SIZE_LIMIT) {
      const over = total - USER_STATE_SIZE_LIMIT;
      return failure(
        state,
        errors.badRequest(
          `Request exceeds storage limit by ${over} characters. The limit is ${USER_STATE_SIZE_LIMIT} characters.`,
        ),
      );
    }
    const changed = entries.filter(([key, value]) => old.get(key) !== value);
    if (changed.length === 0) return success(state, { ignored });
    // Existing keys keep their place (Zulip updates the row); new keys follow in request order.
    const updates = new Map(changed);
    const next: BotStorageEntry[] = rows.map((r) =>
      updates.has(r.key) ? Object.freeze({ ...r, value: updates.get(r.key)! }) : r,
    );
    for (const [key, value] of changed)
      if (!old.has(key)) next.push(Object.freeze({ bot_id: user.user_id, key, value }));
    const after = edit(state, (draft) => {
      draft.botStorage = draft.botStorage.set(user.user_id, Object.freeze(next));
    });
    return success(after, { ignored });
  },
});
