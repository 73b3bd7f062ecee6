import { EMPTY_IDS, type IdList } from '../core/messages/idlist';
import { NarrowError, type PlanBuilder } from './plan-builder';
import { findChannel } from './resolve';
import { pyStr, type NarrowTerm } from './terms';

/**
 * The channel family: `channel`/`stream`, `channels`/`streams` and `topic`. A positive channel
 * term drives candidates from the channel's list, a topic term after it from the topic's list.
 */

export const CHANNEL_OPS = new Set(['channel', 'stream']);
export const CHANNELS_OPS = new Set(['channels', 'streams']);

export function applyChannel(b: PlanBuilder, { operand, negated }: NarrowTerm): void {
  b.mark(!negated, false);
  const channel = findChannel(b.ctx.state, operand);
  if (channel === undefined) throw new NarrowError(`unknown channel ${pyStr(operand)}`);
  const id = channel.stream_id;
  const at = b.add(negated, (c, i) => c.recipient[i] === id);
  b.channelTerm ??= id;
  if (!negated) {
    b.positiveChannel = id;
    b.positiveChannelAt = at;
    b.driveFrom(b.ctx.state.messages.byChannel.get(id) ?? EMPTY_IDS, [at], id);
  }
}

export function applyChannels(b: PlanBuilder, { operand, negated }: NarrowTerm): void {
  b.mark(!negated, false);
  if (operand !== 'public' && operand !== 'web-public')
    throw new NarrowError(`unknown channels operand ${pyStr(operand)}`);
  const webPublic = operand === 'web-public';
  const state = b.ctx.state;
  // Per channel, not per message: a channel's answer is the same for each of its messages.
  const cache = new Map<number, boolean>();
  b.add(negated, (c, i) => {
    const r = c.recipient[i]!;
    if (r <= 0) return false;
    let ok = cache.get(r);
    if (ok === undefined) {
      const ch = state.channels.get(r);
      ok =
        ch !== undefined &&
        (webPublic ? ch.is_web_public : !ch.invite_only && ch.history_public_to_subscribers);
      cache.set(r, ok);
    }
    return ok;
  });
}

export function applyTopic(b: PlanBuilder, { operand, negated }: NarrowTerm): void {
  b.mark(!negated, false);
  const key = b.ctx.state.messages.foldedTopics.ids.get(String(operand).toLowerCase());
  const at = b.add(
    negated,
    key === undefined ? () => false : (c, i) => c.recipient[i]! > 0 && c.topicKey[i] === key,
  );
  if (negated) return;
  const channel = b.positiveChannel;
  if (channel !== null) b.driveFrom(topicList(b, channel, key), [at, b.positiveChannelAt], channel);
  else b.pendingTopics.push({ key, at });
}

/** A topic term before the channel term still narrows to the channel's topic list. */
export function settlePendingTopics(b: PlanBuilder): void {
  const channel = b.positiveChannel;
  if (channel === null) return;
  for (const p of b.pendingTopics) {
    b.driveFrom(topicList(b, channel, p.key), [p.at, b.positiveChannelAt], channel);
  }
}

function topicList(b: PlanBuilder, channel: number, key: number | undefined): IdList {
  return key === undefined ? EMPTY_IDS : (b.ctx.state.messages.byTopic.get(channel)?.get(key) ?? EMPTY_IDS);
}
