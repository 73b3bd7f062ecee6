import { errors, type ZulipError } from '../errors';
import type { Channel, User } from '../model/records';
import { hasContentAccess, hasMetadataAccess, isSubscribed } from '../permissions/channels';
import { isGuest } from '../permissions/roles';
import type { RealmState } from '../state';

/**
 * Zulip's `access_stream_by_id` (zerver/lib/streams.py): the channel when the user has content
 * access to it (subscribed, public for a non-guest, web-public, or allowed to subscribe or to add
 * subscribers); `Invalid channel ID` otherwise, for a missing channel as for a hidden one, so that
 * the answer never tells whether a private channel exists. Archived channels are found (Zulip's
 * default `require_active_channel=False`). `metadata`: Zulip's `require_content_access=False`,
 * where administrators and channel administrators also pass.
 */
export function accessChannelById(
  state: RealmState,
  user: User,
  streamId: number,
  metadata = false,
): Channel | ZulipError {
  const channel = state.channels.get(streamId);
  if (channel === undefined) return errors.invalidChannelId();
  const ok = metadata ? hasMetadataAccess(state, user, channel) : hasContentAccess(state, user, channel);
  return ok ? channel : errors.invalidChannelId();
}

/** Whether `accessChannelById` answered an error. */
export function isAccessError(r: Channel | ZulipError): r is ZulipError {
  return 'msg' in r;
}

/**
 * Zulip's `validate_user_access_to_subscribers_helper`: who may read a channel's subscriber list.
 * Web-public channels: anyone. Guests: only where subscribed. Public channels: every member.
 * Private channels: subscribers, and whoever has metadata access (administrators, channel
 * administrators, holders of the subscribe / add-subscribers settings).
 */
export function canReadSubscribers(state: RealmState, user: User, channel: Channel): boolean {
  if (channel.is_web_public) return true;
  if (isSubscribed(state, channel.stream_id, user.user_id)) return true;
  if (isGuest(user)) return false;
  if (!channel.invite_only) return true;
  return hasMetadataAccess(state, user, channel);
}
