import { zulipError } from '../../core/errors';
import type { User } from '../../core/model/records';

/**
 * Zulip's BotRequiredError (FL494), shared by the three /bot_storage routes: 400,
 * `PERMISSION_DENIED`, `Must be a bot user`, raised before the parameters are read.
 */
export function botRequired(user: User) {
  return user.is_bot ? undefined : zulipError('Must be a bot user', 'PERMISSION_DENIED');
}

/** Zulip's `settings.USER_STATE_SIZE_LIMIT`: a bot's keys and values, in characters. */
export const USER_STATE_SIZE_LIMIT = 10_000_000;
