import { describe, expect, it } from 'vitest';
import { allMessages } from '../../src/core/messages/store';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { getMessages, sendMessage } from '../../src/ops/index';
import { applyTraffic, simulateTraffic } from '../../src/simulate/traffic';
import { simulateRealm } from '../../src/simulate/simulate';
import { expectValidEvent } from '../support/openapi';

describe('simulated traffic', () => {
  const base = simulateRealm({ preset: 'small', messages: 300, seed: 3 });

  it('replays a day of an organization through sendMessage, each message reaching its recipients', () => {
    let state = base;
    let sent = 0;
    const times: number[] = [];
    for (const call of simulateTraffic(base, { messages: 200, seed: 9 })) {
      const r = sendMessage(state, call.actor, call.params, call.ctx);
      if (r.status !== 200) continue;
      sent++;
      const id = (r.body as unknown as { id: number }).id;
      const received = r.events.filter((e) => e.event.type === 'message').flatMap((e) => e.users);
      for (const e of r.events) expectValidEvent(e.event);
      // Every recipient of the event fetches the message back.
      for (const userId of received.slice(0, 3)) {
        const got = getMessages(r.state, { userId }, { anchor: id, num_before: 0, num_after: 0 });
        expect((got.body['messages'] as Array<{ id: number }>).map((m) => m.id)).toEqual([id]);
      }
      times.push(call.ctx.now!);
      state = r.state;
    }
    expect(sent).toBeGreaterThan(150);
    expect(times[0]).toBe(base.now);
    expect(times.at(-1)! - times[0]!).toBeGreaterThan(80_000);
    expect(state.messages.count).toBe(base.messages.count + sent);
    // The same as the simulator's own option, and deterministic.
    const applied = applyTraffic(base, { messages: 200, seed: 9 });
    expect(applied.sent).toBe(sent);
    expect(snapshotRealm(applied.state)).toEqual(snapshotRealm(state));
  });

  it('simulateRealm({ traffic }) adds sent messages after the generated history; presets are unchanged', () => {
    const withTraffic = simulateRealm({ preset: 'small', messages: 300, seed: 3, traffic: 50 });
    expect(withTraffic.messages.count).toBeGreaterThan(base.messages.count);
    const generated = [...allMessages(base.messages)].map((m) => m.id);
    expect([...allMessages(withTraffic.messages)].slice(0, generated.length).map((m) => m.id)).toEqual(
      generated,
    );
    expect(snapshotRealm(simulateRealm({ preset: 'small', messages: 300, seed: 3 }))).toEqual(
      snapshotRealm(base),
    );
  });
});
