import { describe, expect, it } from 'vitest';
import { streamToDict, subscribedStreamDict } from '../../src/core/channels/stream-dict';
import { subscriberCount } from '../../src/core/indexes/subscription-indexes';
import {
  CHANNEL_GROUP_SETTING_NAMES,
  SUBSCRIPTION_NOTIFICATION_PROPERTIES,
} from '../../src/core/model/records';
import { subscriberIds } from '../../src/core/permissions/channels';
import { settingApiValue } from '../../src/core/permissions/groups';
import { sendMessage } from '../../src/ops/index';
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

// The template cache (stream-dict.ts): every caller gets its own copy, and a template is rebuilt
// when what it was built from changes (Zulip computes `stream_to_dict` afresh per request).
describe('streamToDict templates', () => {
  const realm = devRealm();
  const channel = [...realm.channels.values()].find(
    (c) => !c.is_archived && subscriberIds(realm, c.stream_id).length > 0,
  )!;
  it('serves equal but separate copies, which callers may change', () => {
    const a = streamToDict(realm, channel, 0);
    const b = streamToDict(realm, channel, 0);
    expect(a).not.toBe(b);
    expect(a).toEqual(b);
    a['name'] = 'changed';
    expect(streamToDict(realm, channel, 0)['name']).toBe(channel.name);
  });
  it('serves plain objects, as a literal would be: Object.prototype, the template keys in order', () => {
    const a = streamToDict(realm, channel, 0);
    expect(Object.getPrototypeOf(a)).toBe(Object.prototype);
    expect(a).toStrictEqual(JSON.parse(JSON.stringify(a)));
    // Register adds subscription fields to its copies: they reach neither the template nor the next copy.
    a['color'] = '#000000';
    const b = streamToDict(realm, channel, 0);
    expect(b).not.toHaveProperty('color');
    expect(Object.keys(b)).toEqual(Object.keys(a).filter((k) => k !== 'color'));
  });
  it('follows `now` both ways and a new message of the channel', () => {
    const far = 4_000_000_000;
    expect(streamToDict(realm, channel, far)['is_recently_active']).toBe(false);
    const sender = subscriberIds(realm, channel.stream_id)
      .map((id) =>
        sendMessage(
          realm,
          { userId: id },
          { type: 'stream', to: channel.stream_id, topic: 't', content: 'x' },
          { now: far },
        ),
      )
      .find((r) => r.status === 200)!;
    const next = sender.state;
    expect(streamToDict(next, next.channels.get(channel.stream_id)!, far)['is_recently_active']).toBe(true);
    expect(streamToDict(realm, channel, far)['is_recently_active']).toBe(false);
    expect(
      streamToDict(next, next.channels.get(channel.stream_id)!, far + 200 * 86400)['is_recently_active'],
    ).toBe(false);
    expect(streamToDict(next, next.channels.get(channel.stream_id)!, far)['is_recently_active']).toBe(true);
  });
});

// subscribedStreamDict writes the channel's fields out a second time (one constructor, one shape):
// this pins it to streamToDict, so a channel field added to one and not the other fails here.
describe('subscribedStreamDict', () => {
  const realm = devRealm();
  // Zulip's order: colour, muting, pinning, then the notification settings.
  const subFields = [
    'color',
    'is_muted',
    'in_home_view',
    'pin_to_top',
    ...SUBSCRIPTION_NOTIFICATION_PROPERTIES,
  ];
  it("is streamToDict's keys and values in order, then the subscription's properties", () => {
    let checked = 0;
    for (const [streamId, subs] of realm.subscriptions.entries())
      for (const sub of subs.values()) {
        const channel = realm.channels.get(streamId)!;
        const dict = subscribedStreamDict(realm, channel, sub, 0, (id) => subscriberCount(realm, id));
        const plain = streamToDict(realm, channel, 0);
        expect(Object.keys(dict)).toEqual([...Object.keys(plain), ...subFields]);
        for (const k of Object.keys(plain)) expect(dict[k]).toEqual(plain[k]);
        expect(dict['in_home_view']).toBe(!sub.is_muted);
        for (const k of subFields.filter((f) => f !== 'in_home_view'))
          expect(dict[k]).toBe(sub[k as keyof typeof sub]);
        checked++;
      }
    expect(checked).toBeGreaterThan(10);
  });

  // Register's legacy clients: only a null setting takes the global one; set ones stay as they are.
  it('with nullAs, writes a null notification setting as the given one and keeps the others', () => {
    const nullAs = {
      desktop_notifications: true,
      audible_notifications: false,
      push_notifications: true,
      email_notifications: false,
      wildcard_mentions_notify: true,
    };
    let replaced = 0;
    let kept = 0;
    for (const [streamId, subs] of realm.subscriptions.entries())
      for (const sub of subs.values()) {
        const channel = realm.channels.get(streamId)!;
        const counts = (id: number) => subscriberCount(realm, id);
        const dict = subscribedStreamDict(realm, channel, sub, 0, counts, nullAs);
        const bare = subscribedStreamDict(realm, channel, sub, 0, counts);
        expect(Object.keys(dict)).toEqual(Object.keys(bare));
        for (const k of SUBSCRIPTION_NOTIFICATION_PROPERTIES) {
          const own = sub[k as keyof typeof sub];
          if (own === null) replaced++;
          else kept++;
          expect(dict[k]).toBe(own === null ? nullAs[k as keyof typeof nullAs] : own);
        }
      }
    expect(replaced).toBeGreaterThan(10);
    expect(kept).toBeGreaterThan(0);
  });
});
