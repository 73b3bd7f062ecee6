/**
 * One member cannot monopolise a realm: Zulip's per-user API rate limit (api_by_user, 200
 * requests per 60 s by default) in the server layer, with its 429 RATE_LIMIT_HIT answer.
 */
import { describe, expect, it } from 'vitest';
import { createHttpCore, type HttpOptions } from '../../src/server/http';
import { RateLimiter } from '../../src/server/rate-limit';
import { pureRealm } from '../../src/server/pure';
import { basicAuthHeader } from '../../src/wire/auth';
import { cast, devRealm, testCtx } from '../support/realm';

const authOf = (id: number) => {
  const u = devRealm().users.get(id)!;
  return basicAuthHeader(u.delivery_email, u.api_key);
};

function core(rateLimit: HttpOptions['rateLimit'] | undefined) {
  const realm = pureRealm(devRealm(), () => testCtx());
  const answer = createHttpCore(rateLimit === undefined ? { realm } : { realm, rateLimit });
  return (authorization: string | null, path = '/api/v1/users/me', method = 'GET') =>
    answer({ method, path, search: '', headers: authorization === null ? {} : { authorization } }, null);
}

describe('per-user rate limit', () => {
  it("refuses the request past the limit with Zulip's 429 body and Retry-After, other users unaffected", async () => {
    const clock = { t: 1_000_000 };
    const get = core({ maxRequests: 3, windowSecs: 60, now: () => clock.t });
    const hamlet = authOf(cast.hamlet);
    for (let i = 0; i < 3; i++) {
      expect((await get(hamlet)).status).toBe(200);
      clock.t += 1000;
    }
    clock.t += 12_500;
    const refused = await get(hamlet);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body!)).toEqual({
      result: 'error',
      msg: 'API usage exceeded rate limit',
      code: 'RATE_LIMIT_HIT',
      'retry-after': 44.5,
    });
    expect(refused.headers['retry-after']).toBe('44.5');
    // Another user, and the event long-polls, are not held back.
    expect((await get(authOf(cast.iago))).status).toBe(200);
    expect((await get(hamlet, '/api/v1/events')).status).not.toBe(429);
    // Once the oldest request leaves the window, one more fits.
    clock.t += 44_500;
    expect((await get(hamlet)).status).toBe(200);
    const again = await get(hamlet);
    expect(again.status).toBe(429);
    expect(again.headers['retry-after']).toBe('1');
  });

  it('counts only authenticated requests: bad credentials neither count nor grow the limiter', async () => {
    const limiter = new RateLimiter({ maxRequests: 2, windowSecs: 60 });
    const get = core(limiter);
    for (let i = 0; i < 50; i++)
      expect((await get(`Basic ${btoa(`x${i}@y:${'k'.repeat(32)}`)}`)).status).toBe(401);
    expect(limiter.size).toBe(0);
    expect((await get(authOf(cast.hamlet))).status).toBe(200);
    expect(limiter.size).toBe(1);
  });

  it('keeps at most maxUsers users (memory bounded by users × requests)', () => {
    const limiter = new RateLimiter({ maxRequests: 5, windowSecs: 60, maxUsers: 10 });
    for (let i = 0; i < 1000; i++) limiter.record(`user ${i}`);
    expect(limiter.size).toBe(10);
  });

  it('forgets the least recently active user first, however many requests in a row the latest made', () => {
    const kept = (sequence: readonly string[]) => {
      const limiter = new RateLimiter({ maxRequests: 1, windowSecs: 60, maxUsers: 2, now: () => 0 });
      for (const key of sequence) limiter.record(key);
      return ['a', 'b', 'c'].filter((key) => limiter.secsToFreedom(key) > 0);
    };
    expect(kept(['a', 'b', 'b', 'c'])).toEqual(['b', 'c']);
    expect(kept(['a', 'b', 'a', 'a', 'c'])).toEqual(['a', 'c']);
    expect(kept(['a', 'a', 'b', 'b', 'a', 'c', 'c'])).toEqual(['a', 'c']);
  });

  it('is off unless asked for (the library; `serve` turns it on)', async () => {
    const get = core(undefined);
    for (let i = 0; i < 250; i++) expect((await get(authOf(cast.hamlet))).status).toBe(200);
  });
});
