import type { Channel } from '../model/records';
import { sha256Hex } from '../sha256';
import type { RealmState } from '../state';

/**
 * Channel email addresses (Zulip's zerver/lib/email_mirror_helpers.py). Zulip keeps one random
 * 32-hex-digit token per (channel, creator, sender) in its ChannelEmailAddress table and creates
 * it on first request; a read here never changes state, so the token is derived instead: from the
 * channel's `email_token` secret (or, for a channel without one, from the realm and channel ids),
 * the creator and the sender. The same request always gives the same address, and a gateway can
 * recompute it to find the channel.
 */
export function channelEmailToken(
  state: RealmState,
  channel: Channel,
  creatorId: number,
  senderId: number,
): string {
  const secret = channel.email_token ?? `realm:${state.realm.id}:channel:${channel.stream_id}`;
  return sha256Hex(`${secret}:${creatorId}:${senderId}`).slice(0, 32);
}

/** Django's `slugify`: ASCII after NFKD, lower case, word characters, single hyphens, no edge `-_`. */
function slugify(text: string): string {
  const ascii = text.normalize('NFKD').replace(/[^\p{ASCII}]/gu, '');
  return ascii
    .toLowerCase()
    .replace(/[^\w\s-]/g, '')
    .replace(/[-\s]+/g, '-')
    .replace(/^[-_]+|[-_]+$/g, '');
}

/**
 * Zulip's `encode_email_address`: `<slug>.<token>[.show-sender]` put into the gateway pattern; the
 * slug is left out (`channel.<token>`) when the name does not survive conversion to ASCII whole.
 * "" when no gateway is configured.
 */
export function encodeEmailAddress(
  pattern: string,
  name: string,
  token: string,
  showSender: boolean,
): string {
  if (pattern === '') return '';
  // Python's \W+: runs of characters that are neither letters, digits nor underscores.
  const hyphenated = name.replace(/[^\p{L}\p{N}_]+/gu, '-');
  const slug = slugify(hyphenated);
  let local = slug !== '' && slug.length === hyphenated.length ? `${slug}.${token}` : `channel.${token}`;
  if (showSender) local += '.show-sender';
  // Python's `%` substitutes the one `%s`; `%%` is a literal percent sign.
  return pattern.replace(/%(s|%)/g, (m) => (m === '%%' ? '%' : local));
}
