import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IntMap } from '../../src/core/collections/int-map';
import { channelsByName } from '../../src/core/indexes/channel-order';
import type { Channel } from '../../src/core/model/records';
import { compareCodePoints } from '../../src/core/text/code-points';
import { devRealm } from '../support/realm';

// Zulip lists channels with `sorted(..., key=lambda s: s["name"])` (gather_subscriptions_helper,
// do_get_streams): Python's code-point order; ids break ties as the sort did before.
describe('channelsByName', () => {
  const template = [...devRealm().channels.values()][0]!;
  it('is every channel, by name in code-point order, then by id', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 4 }), { maxLength: 30 }), (names) => {
        let channels = IntMap.empty<Channel>();
        names.forEach((name, i) => (channels = channels.set(i + 1, { ...template, stream_id: i + 1, name })));
        const order = channelsByName(channels).map((c) => c.stream_id);
        const expected = [...channels.values()]
          .sort((a, b) => compareCodePoints(a.name, b.name) || a.stream_id - b.stream_id)
          .map((c) => c.stream_id);
        expect(order).toEqual(expected);
        expect(channelsByName(channels)).toBe(channelsByName(channels));
      }),
    );
  });
});
