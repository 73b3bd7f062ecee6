import { describe, expect, it } from 'vitest';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { allMessages } from '../../src/core/messages/store';
import { FLAG_BITS } from '../../src/core/messages/flags';
import { HEAVY_USER_ID, simulateRealm } from '../../src/simulate/simulate';
import { snapshotText } from '../../src/simulate/snapshot-text';

describe('simulateRealm', () => {
  const sim = simulateRealm({ preset: 'small', seed: 7 });

  it('round-trips through a snapshot on the small preset', () => {
    const snap = snapshotRealm(sim);
    const again = createRealm(JSON.parse(JSON.stringify(snap)));
    expect(snapshotRealm(again)).toEqual(snap);
  });

  it('streams the same snapshot text as snapshotRealm', () => {
    const text = [...snapshotText(sim, 97)].join('');
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(snapshotRealm(sim))));
  });

  it('is deterministic for a seed and differs across seeds', () => {
    const a = snapshotRealm(simulateRealm({ preset: 'small', seed: 3 }));
    expect(snapshotRealm(simulateRealm({ preset: 'small', seed: 3 }))).toEqual(a);
    expect(snapshotRealm(simulateRealm({ preset: 'small', seed: 4 }))).not.toEqual(a);
  });

  it('makes a realistic organization: roles, long-tailed channels, DMs, mentions, stars, unread, muting', () => {
    const users = [...sim.users.values()];
    expect(users.length).toBe(40);
    expect(new Set(users.map((u) => u.role))).toEqual(new Set([100, 200, 300, 400, 600]));
    expect(users.some((u) => u.is_bot)).toBe(true);
    const sizes = [...sim.subscriptions.values()]
      .map((m) => [...m.values()].filter((s) => s.active).length)
      .sort((a, b) => b - a);
    expect(sizes[0]!).toBeGreaterThan(sizes[sizes.length - 1]! * 2);
    const msgs = [...allMessages(sim.messages)];
    expect(msgs.length).toBe(1500);
    expect(msgs.some((m) => m.participants !== null && m.participants.length >= 3)).toBe(true);
    expect(msgs.some((m) => m.participants !== null && m.participants.length === 2)).toBe(true);
    let mentioned = 0;
    let starred = 0;
    let unread = 0;
    let rows = 0;
    for (const r of sim.messages.rows.values()) {
      for (const c of r.chunks) {
        for (const f of c.flags) {
          rows++;
          if (f & FLAG_BITS.mentioned) mentioned++;
          if (f & FLAG_BITS.starred) starred++;
          if (!(f & FLAG_BITS.read)) unread++;
        }
      }
    }
    expect(mentioned).toBeGreaterThan(0);
    expect(starred).toBeGreaterThan(0);
    expect(unread / rows).toBeGreaterThan(0.1);
    const policies = new Set([...sim.userTopics.values()].flat().map((t) => t.visibility_policy));
    expect(policies).toEqual(new Set([1, 3]));
    // The heavy user is subscribed everywhere and has read nothing.
    const heavy = sim.messages.rows.get(HEAVY_USER_ID)!;
    expect([...sim.subscriptions.values()].every((m) => m.get(HEAVY_USER_ID)?.active === true)).toBe(true);
    expect(heavy.chunks.every((c) => c.flags.every((f) => (f & FLAG_BITS.read) === 0))).toBe(true);
  });

  it('honours explicit sizes', () => {
    const s = simulateRealm({ users: 25, channels: 4, messages: 300, seed: 2, dmRatio: 0 });
    expect(s.users.size).toBe(25);
    expect(s.channels.size).toBe(4);
    expect(s.messages.count).toBe(300);
    expect([...allMessages(s.messages)].every((m) => m.stream_id !== null)).toBe(true);
  });
});
