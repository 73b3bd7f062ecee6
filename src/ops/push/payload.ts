import type { RealmState } from '../../core/state';

/**
 * The data of Zulip's test push notification: the base payload every notification carries
 * (`server`, `realm_id`, `realm_uri`, `realm_url`, `realm_name`, `user_id`), then `event: "test"`,
 * and `time` (UNIX seconds; Zulip adds it to the Android payload only, APNs devices ignore it).
 * `server` is Zulip's EXTERNAL_HOST, which we take to be the host part of the realm's URL.
 */
export function testNotificationPayload(
  state: RealmState,
  userId: number,
  now: number,
): Readonly<Record<string, unknown>> {
  const { realm } = state;
  return {
    server: hostOf(realm.uri),
    realm_id: realm.id,
    realm_uri: realm.uri,
    realm_url: realm.uri,
    realm_name: realm.name,
    user_id: userId,
    event: 'test',
    time: Math.floor(now),
  };
}

function hostOf(url: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url);
  return match?.[1] ?? url;
}
