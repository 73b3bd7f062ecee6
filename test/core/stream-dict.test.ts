import { describe, expect, it } from 'vitest';
import { streamToDict } from '../../src/core/channels/stream-dict';
import { subscriberCount } from '../../src/core/indexes/subscription-indexes';
import { CHANNEL_GROUP_SETTING_NAMES } from '../../src/core/model/records';
import { subscriberIds } from '../../src/core/permissions/channels';
import { settingApiValue } from '../../src/core/permissions/groups';
import { devRealm } from '../support/realm';

describe('streamToDict (one literal, kept in step with the model)', () => {
  const realm = devRealm();
  it('has every channel group setting, in CHANNEL_GROUP_SETTING_NAMES order, right after is_archived', () => {
    for (const channel of realm.channels.values()) {
      const dict = streamToDict(realm, channel, 0);
      const keys = Object.keys(dict);
      expect(keys.slice(1, 1 + CHANNEL_GROUP_SETTING_NAMES.length)).toEqual([...CHANNEL_GROUP_SETTING_NAMES]);
      for (const name of CHANNEL_GROUP_SETTING_NAMES)
        expect(dict[name]).toEqual(settingApiValue(realm, channel[name]));
    }
  });
  it('subscriber_count is the kept count, equal to the active subscribers who are active users', () => {
    for (const channel of realm.channels.values()) {
      const n = subscriberIds(realm, channel.stream_id).length;
      expect(subscriberCount(realm, channel.stream_id)).toBe(n);
      expect(streamToDict(realm, channel, 0)['subscriber_count']).toBe(n);
    }
  });
});
