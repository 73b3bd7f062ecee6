import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure, success } from '../../core/result';
import { botRequired } from './bot-required';

/**
 * GET /api/v1/bot_storage — https://zulip.com/api/get-bot-storage (zerver/views/storage.py
 * `get_storage`)
 *
 * The calling bot's stored values for `keys` (JSON list of strings), or every stored entry when
 * `keys` is absent or null. One unknown key refuses the whole request with Zulip's StateError
 * text, `Key does not exist.` (400 BAD_REQUEST). Bots only (FL494), refused before the
 * parameters are read. Read-only: no events, the same state.
 *
 * @example
 * ```ts
 * const r = getBotStorage(realm, { userId: 13 }, { keys: ['state'] });
 * expect(r.body).toEqual({ result: 'success', msg: '', storage: { state: 'idle' } });
 * ```
 */
export const getBotStorage = defineOperation({
  name: 'getBotStorage',
  method: 'GET',
  path: '/bot_storage',
  operationId: 'get-bot-storage',
  guard: (_state, user) => botRequired(user),
  params: [param('keys', z.nullable(z.array(z.string())))],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const rows = state.botStorage.get(user.user_id) ?? [];
    const byKey = new Map(rows.map((r) => [r.key, r.value]));
    const keys = params.keys ?? rows.map((r) => r.key);
    // Built as a null-prototype object: a bot may store a key named `__proto__`.
    const storage: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const key of keys) {
      const value = byKey.get(key);
      if (value === undefined) return failure(state, errors.badRequest('Key does not exist.'));
      storage[key] = value;
    }
    return success(state, { ignored, data: { storage: { ...storage } } });
  },
});
