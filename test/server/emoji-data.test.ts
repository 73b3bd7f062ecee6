import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../src/server/fetch';
import { pureRealm } from '../../src/server/pure';
import { basicAuthHeader } from '../../src/wire/auth';
import { cast, devRealm, testCtx } from '../support/realm';

/**
 * register's `server_emoji_data_url` names a JSON file the bundled server serves, in the shape
 * zulip-flutter reads (`ServerEmojiData`, lib/api/route/realm.dart): `{"code_to_names": {...}}`.
 */
describe('server emoji data', () => {
  it('is served at the URL register gives, without credentials', async () => {
    const realm = pureRealm(devRealm(), () => testCtx());
    const handler = createFetchHandler({ realm });
    const hamlet = devRealm().users.get(cast.hamlet)!;
    const reg = await handler(
      new Request('http://realm.test/api/v1/register', {
        method: 'POST',
        headers: {
          authorization: basicAuthHeader(hamlet.delivery_email, hamlet.api_key),
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'fetch_event_types=["realm"]',
      }),
    );
    const url = ((await reg.json()) as { server_emoji_data_url: string }).server_emoji_data_url;
    const path = new URL(url).pathname;
    const response = await handler(new Request(`http://realm.test${path}`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const data = (await response.json()) as { code_to_names: Record<string, string[]> };
    expect(Object.keys(data)).toEqual(['code_to_names']);
    expect(data.code_to_names['1f44d']).toEqual(expect.arrayContaining(['+1', 'thumbs_up']));
    expect(data.code_to_names['1f44d']![0]).toBe('+1');
    expect(Object.keys(data.code_to_names).length).toBeGreaterThan(1800);
    // Another method on that path is not the file.
    expect((await handler(new Request(`http://realm.test${path}`, { method: 'POST' }))).status).not.toBe(200);
  });
});
