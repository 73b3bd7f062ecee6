import { describe, expect, it } from 'vitest';
import { createRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { addAlertWords } from '../../src/ops/users/addAlertWords';
import { muteUser } from '../../src/ops/personal/muteUser';
import { updateStatus } from '../../src/ops/users/updateStatus';
import { as, cast, devSnapshot, devRealm, realmFromUnknown, testCtx } from '../support/realm';

/** Issue 26's personal state in snapshots: carried, reloaded, and absent from older ones. */
describe('snapshot sections muted_users, alert_words, user_status', () => {
  it('are written and read back exactly', () => {
    let s = devRealm();
    s = muteUser(s, as('hamlet'), { muted_user_id: cast.cordelia }, testCtx()).state;
    s = addAlertWords(s, as('hamlet'), { alert_words: ['Lunch', 'deploy'] }, testCtx()).state;
    s = updateStatus(s, as('iago'), { status_text: 'out', away: true, emoji_name: 'zulip' }, testCtx()).state;
    const snap = snapshotRealm(s);
    expect(snap.muted_users).toEqual([
      { user_id: cast.hamlet, muted_user_id: cast.cordelia, date_muted: 1795219200 },
    ]);
    expect(snap.alert_words).toEqual([
      { user_id: cast.hamlet, word: 'Lunch' },
      { user_id: cast.hamlet, word: 'deploy' },
    ]);
    expect(snap.user_status).toEqual([
      {
        user_id: cast.iago,
        status_text: 'out',
        emoji_name: 'zulip',
        emoji_code: 'zulip',
        reaction_type: 'zulip_extra_emoji',
        away: true,
      },
    ]);
    const reloaded = createRealm(JSON.parse(JSON.stringify(snap)));
    expect(snapshotRealm(reloaded)).toEqual(snap);
    expect(reloaded.alertWords.get(cast.hamlet)).toEqual(['Lunch', 'deploy']);
  });

  it('older snapshots without them load with none', () => {
    const s = createRealm(devSnapshot());
    expect(s.mutedUsers.size).toBe(0);
    expect(s.alertWords.size).toBe(0);
    expect(s.userStatuses.size).toBe(0);
  });

  it('refuses self-mutes, unknown users and duplicate words', () => {
    const bad = { ...devSnapshot(), muted_users: [{ user_id: 4, muted_user_id: 4 }] };
    expect(() => realmFromUnknown(bad)).toThrow(/cannot mute themself/);
    const unknown = { ...devSnapshot(), user_status: [{ user_id: 999 }] };
    expect(() => realmFromUnknown(unknown)).toThrow();
    const dup = {
      ...devSnapshot(),
      alert_words: [
        { user_id: 4, word: 'a' },
        { user_id: 4, word: 'A' },
      ],
    };
    expect(() => realmFromUnknown(dup)).toThrow();
  });
});
