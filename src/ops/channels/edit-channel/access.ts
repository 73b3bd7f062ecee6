import { errors, type ZulipError } from '../../../core/errors';
import type { User } from '../../../core/model/records';
import { canAdministerChannel, hasContentAccess } from '../../../core/permissions/channels';
import type { RealmState } from '../../../core/state';

/** The first access check, against the unchanged state: the channel exists and the caller administers it. */
export function checkAdministerAccess(
  state: RealmState,
  user: User,
  streamId: number,
): ZulipError | undefined {
  const channel = state.channels.get(streamId);
  if (channel === undefined) return errors.invalidChannelId();
  if (!canAdministerChannel(state, user, channel)) {
    // Without content access the channel's existence stays hidden.
    return hasContentAccess(state, user, channel)
      ? errors.badRequest('You do not have permission to administer this channel.')
      : errors.invalidChannelId();
  }
  return undefined;
}

export const contentAccessRequired = () => errors.badRequest('Channel content access is required.');
