import { describe, expect, it } from 'vitest';
import { getServerSettings, getStreams, getSubscriptions, register } from '../../src/ops/live/index';
import { loose } from '../support/loose';
import { validateResponse } from '../support/openapi';
import { cast, devRealm, testCtx } from '../support/realm';

const realm = devRealm();

describe('live endpoints validate against Zulip OpenAPI', () => {
  it.each(Object.entries(cast).filter(([, id]) => realm.users.get(id)?.is_active))(
    'register for %s (all types)',
    (_name, userId) => {
      const r = register(realm, { userId }, { include_subscribers: true }, testCtx());
      expect(r.status).toBe(200);
      expect(validateResponse('register-queue', 200, r.body)).toEqual([]);
    },
  );
  it('register with modern capabilities', () => {
    const r = register(
      realm,
      { userId: cast.hamlet },
      {
        client_capabilities: {
          notification_settings_null: true,
          user_settings_object: true,
          user_list_incomplete: true,
          include_deactivated_groups: true,
          linkifier_url_template: true,
          archived_channels: true,
          empty_topic_name: true,
        },
      },
      testCtx(),
    );
    expect(validateResponse('register-queue', 200, r.body)).toEqual([]);
  });
  it('register checks the narrow (the queue applies it): unsupported operators refused, nothing changed', () => {
    const ok = register(realm, { userId: cast.hamlet }, { narrow: [['channel', 'Verona']] }, testCtx());
    expect(ok.status).toBe(200);
    const bad = register(
      realm,
      { userId: cast.hamlet },
      {
        narrow: [
          ['is', 'dm'],
          ['has', 'link'],
        ],
      },
      testCtx(),
    );
    expect(bad.body).toEqual({ result: 'error', msg: 'Operator has not supported.', code: 'BAD_REQUEST' });
    expect(bad.state).toBe(realm);
    expect(bad.events).toEqual([]);
    expect(validateResponse('register-queue', 400, bad.body)).toEqual([]);
    // A guest asking for all public channels is refused first, as in Zulip's view.
    const guest = register(
      realm,
      { userId: cast.polonius },
      { all_public_streams: true, narrow: [['search', 'x']] },
      testCtx(),
    );
    expect(guest.body).toMatchObject({ msg: 'User not authorized for this query' });
  });
  it('include_subscribers "partial" (feature level 412): the complete subscriber lists, as the API allows', () => {
    const full = register(realm, { userId: cast.hamlet }, { include_subscribers: true }, testCtx());
    const partial = register(realm, { userId: cast.hamlet }, { include_subscribers: 'partial' }, testCtx());
    expect(partial.body).toEqual(full.body);
    const subs = getSubscriptions(
      realm,
      { userId: cast.hamlet },
      { include_subscribers: 'partial' },
      testCtx(),
    );
    expect(subs.body).toEqual(
      getSubscriptions(realm, { userId: cast.hamlet }, { include_subscribers: true }, testCtx()).body,
    );
    expect(validateResponse('get-subscriptions', 200, subs.body)).toEqual([]);
    const bad = loose(register)(realm, { userId: cast.hamlet }, { include_subscribers: 'some' }, testCtx());
    expect(bad.status).toBe(400);
    expect(bad.state).toBe(realm);
  });
  it('server_settings, streams, subscriptions', () => {
    const s = getServerSettings(realm, { anonymous: true }, {}, testCtx());
    expect(validateResponse('get-server-settings', 200, s.body)).toEqual([]);
    const st = getStreams(
      realm,
      { userId: cast.hamlet },
      { include_web_public: true, include_all: true },
      testCtx(),
    );
    expect(validateResponse('get-streams', 200, st.body)).toEqual([]);
    const sub = getSubscriptions(realm, { userId: cast.hamlet }, { include_subscribers: true }, testCtx());
    expect(validateResponse('get-subscriptions', 200, sub.body)).toEqual([]);
  });
});
