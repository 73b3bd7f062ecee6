/**
 * Who sees a channel's metadata (`metadataAccessUserIds`, Zulip's
 * `bulk_can_access_stream_metadata_user_ids`). For a private channel Zulip adds
 * `realm.get_admin_users_and_bots()`, which selects active users by *role* (owner or administrator):
 * a bot counts when its own role is administrator, not because its owner is one.
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import { hasMetadataAccess, metadataAccessUserIds } from '../../src/core/permissions/channels';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { cast, devRealm, devSnapshot } from '../support/realm';

type Snap = ReturnType<typeof devSnapshot>;
const SECRETS = 7; // private; subscribers desdemona and cordelia
const ROME = 4; // public; polonius (guest) subscribed
const VERONA = 1; // public

function realmWith(change: (snap: Snap) => void): RealmState {
  const snap = devSnapshot();
  change(snap);
  return createRealm(snap, { random: seededRandom(1) });
}
const userRecord = (snap: Snap, id: number) => snap.users.find((u) => u['user_id'] === id)!;
const channelRecord = (snap: Snap, id: number) => snap.channels.find((c) => c.stream_id === id)!;
const recipients = (state: RealmState, streamId: number) =>
  metadataAccessUserIds(state, state.channels.get(streamId)!);

describe('metadataAccessUserIds', () => {
  it('private channel: subscribers and organization administrators, not bots owned by administrators', () => {
    const state = devRealm();
    // The outgoing webhook bot (12) is owned by iago, an administrator; its own role is member.
    expect(state.users.get(cast.outgoingBot)?.bot_owner_id).toBe(cast.iago);
    expect(recipients(state, SECRETS)).toEqual([cast.desdemona, cast.iago, cast.cordelia]);
  });

  it('private channel: a bot whose own role is administrator is included', () => {
    const state = realmWith((snap) => {
      userRecord(snap, cast.outgoingBot)['role'] = 200;
    });
    expect(recipients(state, SECRETS)).toEqual([cast.desdemona, cast.iago, cast.cordelia, cast.outgoingBot]);
    expect(hasMetadataAccess(state, state.users.get(cast.outgoingBot)!, state.channels.get(SECRETS)!)).toBe(
      true,
    );
  });

  it('private channel: deactivated administrators and subscribers are left out', () => {
    const state = realmWith((snap) => {
      userRecord(snap, cast.iago)['is_active'] = false;
      userRecord(snap, cast.cordelia)['is_active'] = false;
    });
    expect(recipients(state, SECRETS)).toEqual([cast.desdemona]);
  });

  it('private channel: non-guest holders of the settings that grant metadata access', () => {
    const state = realmWith((snap) => {
      channelRecord(snap, SECRETS)['can_add_subscribers_group'] = {
        direct_members: [cast.hamlet, cast.polonius],
        direct_subgroups: [],
      };
    });
    expect(recipients(state, SECRETS)).toEqual([cast.desdemona, cast.iago, cast.hamlet, cast.cordelia]);
  });

  it('public channel: every active non-guest plus subscribed guests', () => {
    const state = devRealm();
    const nonGuests = [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16];
    expect(recipients(state, ROME)).toEqual([...nonGuests, cast.polonius].sort((a, b) => a - b));
    const withoutPolonius = realmWith((snap) => {
      snap.subscriptions = snap.subscriptions.filter(
        (s) => !(s.user_id === cast.polonius && s.stream_id === VERONA),
      );
    });
    expect(recipients(withoutPolonius, VERONA)).toEqual(nonGuests);
  });
});
