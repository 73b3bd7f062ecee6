import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { createRealm } from '../../src/core/snapshot/create';
import { crossRealmBots } from '../../src/core/users/system-bots';
import { devRealm, devSnapshot } from '../support/realm';

/** register's `cross_realm_bots` (zerver/lib/users.py `get_cross_realm_dicts`). */
describe('cross_realm_bots', () => {
  it("lists Zulip's system bots by name, self-owned bots shown without an owner", () => {
    const snap = devSnapshot();
    snap.users = snap.users.filter((u) => u.email !== 'welcome-bot@zulip.com');
    const bots = crossRealmBots(createRealm(snap, { random: seededRandom(1) }));
    expect(bots.map((b) => [b.full_name, b.email])).toEqual([
      ['Email Gateway', 'emailgateway@zulip.com'],
      ['Notification Bot', 'notification-bot@zulip.com'],
      ['Welcome Bot', 'welcome-bot@zulip.com'],
    ]);
    for (const b of bots) expect(b).toMatchObject({ is_bot: true, is_system_bot: true, bot_owner_id: null });
  });

  it('leaves out a system bot the organization holds as a user (by address or by id)', () => {
    // The dev realm has its own Welcome Bot user.
    expect(crossRealmBots(devRealm()).map((b) => b.full_name)).toEqual(['Email Gateway', 'Notification Bot']);
    const snap = devSnapshot();
    snap.server = { ...snap.server, notification_bot_id: 4 };
    const state = createRealm(snap, { random: seededRandom(1) });
    expect(crossRealmBots(state).map((b) => b.full_name)).toEqual(['Email Gateway']);
  });

  it('takes the ids from the snapshot (server.*_bot_id)', () => {
    const snap = devSnapshot();
    snap.server = { ...snap.server, email_gateway_bot_id: 900 };
    const state = createRealm(snap, { random: seededRandom(1) });
    expect(crossRealmBots(state)[0]?.user_id).toBe(900);
  });
});
