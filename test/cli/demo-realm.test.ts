/**
 * The demo organization `chat-realm serve` starts from (src/cli/demo-realm.json), as the real
 * clients show it: zulip-terminal's stream information (`i` on a channel) printed "Created on
 * Thu Jan 01 1970" while the channels had no creation date.
 */
import { describe, expect, it } from 'vitest';
import demo from '../../src/cli/demo-realm.json';
import { parseRealm } from '../../src/core/snapshot/create';
import { wire } from '../support/realm';

describe('the demo organization', () => {
  it('every channel has a creation date before its first message', () => {
    const parsed = parseRealm(JSON.parse(JSON.stringify(demo)) as unknown);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const firstMessage = Math.min(...demo.messages.map((m) => m.timestamp));
    const r = wire(parsed.state, 'iago', 'GET', '/streams', { include_all: 'true' });
    const streams = (r.body as unknown as { streams: Array<{ name: string; date_created: number }> }).streams;
    expect(streams.length).toBeGreaterThan(0);
    for (const s of streams) {
      expect(s.date_created, s.name).toBeGreaterThan(0);
      expect(s.date_created, s.name).toBeLessThanOrEqual(firstMessage);
    }
  });
});
