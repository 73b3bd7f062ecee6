import type { IntMap } from '../collections/int-map';
import type { Channel } from '../model/records';
import { compareCodePoints } from '../text/code-points';
import { derived } from './derived';

/**
 * Every channel in the order Zulip lists them (`sorted(..., key=name)`: Python's code-point order,
 * ids breaking ties between equal names), derived from `state.channels` (see `derived.ts`).
 * Register and GET /streams filter this list instead of sorting their answer on every call: a
 * sort of a thousand names cost more than building the thousand dicts. Channels change rarely, so
 * a changed collection is simply sorted again on first use.
 */
const byName = derived<IntMap<Channel>, readonly Channel[]>((channels) =>
  [...channels.values()].sort((a, b) => compareCodePoints(a.name, b.name) || a.stream_id - b.stream_id),
);

/** The channels of `channels` sorted by name (code points), then id. Do not mutate. */
export function channelsByName(channels: IntMap<Channel>): readonly Channel[] {
  return byName.get(channels);
}
