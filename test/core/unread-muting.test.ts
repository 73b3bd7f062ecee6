import { describe, expect, it } from 'vitest';
import { createRealm } from '../../src/core/snapshot/create';
import { isUnreadMuted } from '../../src/core/messages/unread-muting';
import { cast, devSnapshot } from '../support/realm';

// Zulip's rule: zerver/lib/message.py `is_row_muted` (inside `extract_unread_data_from_um_rows`)
// and `apply_unread_message_event`, pinned by test_message_flags.py GetUnreadMsgsTest
// (test_raw_unread_stream, test_unread_msgs with muted topics and channels).
describe('isUnreadMuted (Zulip: message.py is_row_muted)', () => {
  const { hamlet } = cast;
  const VERONA = 1;
  const SCOTLAND = 3; // hamlet's subscription is muted in the fixture
  const snap = devSnapshot();
  snap['user_topics'] = [
    { user_id: hamlet, stream_id: VERONA, topic_name: 'Weather', visibility_policy: 1, last_updated: 1 },
    { user_id: hamlet, stream_id: VERONA, topic_name: 'open', visibility_policy: 2, last_updated: 1 },
    { user_id: hamlet, stream_id: SCOTLAND, topic_name: 'loud', visibility_policy: 2, last_updated: 1 },
    { user_id: hamlet, stream_id: SCOTLAND, topic_name: 'Followed', visibility_policy: 3, last_updated: 1 },
    { user_id: hamlet, stream_id: SCOTLAND, topic_name: 'quiet', visibility_policy: 1, last_updated: 1 },
  ];
  const state = createRealm(snap);

  it('a muted topic in an unmuted channel is muted (topics compare case-insensitively)', () => {
    expect(isUnreadMuted(state, hamlet, VERONA, 'weather')).toBe(true);
    expect(isUnreadMuted(state, hamlet, VERONA, 'WEATHER')).toBe(true);
  });
  it('other topics of an unmuted channel are not muted, whatever their policy', () => {
    expect(isUnreadMuted(state, hamlet, VERONA, 'anything')).toBe(false);
    expect(isUnreadMuted(state, hamlet, VERONA, 'open')).toBe(false);
  });
  it('an unmuted or followed topic in a muted channel is not muted', () => {
    expect(isUnreadMuted(state, hamlet, SCOTLAND, 'loud')).toBe(false);
    expect(isUnreadMuted(state, hamlet, SCOTLAND, 'followed')).toBe(false);
  });
  it('any other topic of a muted channel is muted', () => {
    expect(isUnreadMuted(state, hamlet, SCOTLAND, 'plain')).toBe(true);
    expect(isUnreadMuted(state, hamlet, SCOTLAND, 'quiet')).toBe(true);
  });
  it("another user's policies do not count", () => {
    expect(isUnreadMuted(state, cast.cordelia, VERONA, 'weather')).toBe(false);
  });
});
