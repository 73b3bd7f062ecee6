import { describe, expect, it } from 'vitest';
import { getRealmEmoji } from '../../../src/ops/realm/getRealmEmoji';
import { snapshotRealm } from '../../../src/index';
import { createRealm } from '../../../src/core/snapshot/create';
import { seededRandom } from '../../../src/core/context';
import { emojiRealm } from '../../support/emoji-realm';
import { expectValidResponse } from '../../support/openapi';
import { as, devRealm, wire } from '../../support/realm';

const state = devRealm();

describe('getRealmEmoji (zerver/views/realm_emoji.py list_emoji)', () => {
  it('a realm without custom emoji: {}', () => {
    const r = getRealmEmoji(state, as('hamlet'), {});
    expect(r.body).toEqual({ result: 'success', msg: '', emoji: {} });
    expectValidResponse('get-custom-emoji', 200, r.body);
    expect(wire(state, 'hamlet', 'GET', '/realm/emoji').body).toEqual(r.body);
    expect(wire(state, null, 'GET', '/realm/emoji').status).toBe(401);
  });

  it('every custom emoji by id, deactivated ones included (get_all_custom_emoji_for_realm)', () => {
    const realm = emojiRealm();
    const r = getRealmEmoji(realm, as('polonius'), {});
    expectValidResponse('get-custom-emoji', 200, r.body);
    expect(r.body).toEqual({
      result: 'success',
      msg: '',
      emoji: {
        '1': {
          id: '1',
          name: 'green_tick',
          source_url: '/user_avatars/2/emoji/images/1.png',
          still_url: null,
          deactivated: false,
          author_id: 4,
        },
        '2': {
          id: '2',
          name: 'party_parrot',
          source_url: '/user_avatars/2/emoji/images/2.gif',
          still_url: '/user_avatars/2/emoji/images/still/2.png',
          deactivated: false,
          author_id: 2,
        },
        '3': {
          id: '3',
          name: 'old_logo',
          source_url: '/user_avatars/2/emoji/images/3.png',
          still_url: null,
          deactivated: true,
          author_id: null,
        },
      },
    });
    // Register answers the same.
    const reg = wire(realm, 'hamlet', 'POST', '/register', { fetch_event_types: '["realm_emoji"]' });
    expect((reg.body as unknown as { realm_emoji: unknown }).realm_emoji).toEqual(
      (r.body as unknown as { emoji: unknown }).emoji,
    );
  });
});

describe('custom emoji in snapshots', () => {
  it('round-trip through an export; a realm without any writes no realm_emoji', () => {
    const realm = emojiRealm();
    const snap = snapshotRealm(realm) as { realm_emoji?: unknown[] };
    expect(snap.realm_emoji).toHaveLength(3);
    const again = createRealm(snap as unknown as Parameters<typeof createRealm>[0], {
      random: seededRandom(1),
    });
    expect([...again.realmEmoji.values()]).toEqual([...realm.realmEmoji.values()]);
    expect('realm_emoji' in snapshotRealm(state)).toBe(false);
  });

  it('two active emoji may not share a name; an unknown author is refused', () => {
    const snap = snapshotRealm(emojiRealm()) as { realm_emoji: Array<Record<string, unknown>> };
    snap.realm_emoji.push({ id: 4, name: 'green_tick', source_url: '/x.png' });
    snap.realm_emoji.push({ id: 5, name: 'x', source_url: '/x.png', author_id: 999 });
    expect(() => createRealm(snap as unknown as Parameters<typeof createRealm>[0])).toThrow(/realm_emoji/);
  });
});
