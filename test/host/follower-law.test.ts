/**
 * A follower never diverges from the lease holder (issue 30, step 2). Followers re-run the
 * holder's changes (the measured choice: bench/follower-cost.ts), so the law is checked as a
 * property: after any sequence of writes sent through the holder and through a follower (which
 * forwards them, some answers lost on the way back and retried under their request ids), the
 * follower, caught up, has byte for byte the holder's state (its full checkpoint encoding), every
 * write is applied exactly once, and a change the follower cannot reproduce halts it loudly
 * instead of letting it answer from a state it knows is wrong.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sealRealmCheckpoint } from '../../src/host/checkpoint';
import { RealmHaltedError } from '../../src/host/errors';
import { ForwardError, leasedHandle, type Forward } from '../../src/host/leased-handle';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import type { ApiRequest } from '../../src/wire/handle';
import { memoryStore } from '../../src/stores/memory/index';
import { ALL_OPS } from '../support/host-ops';
import { devSnapshot } from '../support/realm';

const HAMLET = 'Basic ' + btoa('hamlet@zulip.com:hamletKKKKKKKKKKKKKKKKKKKKApiKey');
const OTHELLO = 'Basic ' + btoa('othello@zulip.com:othelloKKKKKKKKKKKKKKKKKKKApiKey');

const form = (auth: string, url: string, fields: Record<string, string>): ApiRequest => ({
  method: 'POST',
  url,
  headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

/** A wire write (what a follower forwards): a message, a new full name, or a saved snippet. */
const arbWrite = fc.oneof(
  fc
    .tuple(fc.constantFrom(HAMLET, OTHELLO), fc.string({ minLength: 1, maxLength: 12 }))
    // A leading letter: content that is only whitespace is (rightly) refused as an empty message.
    .map(([auth, text]) =>
      form(auth, '/api/v1/messages', { type: 'stream', to: 'Denmark', topic: 'law', content: `m${text}` }),
    ),
  fc
    .tuple(fc.constantFrom(HAMLET, OTHELLO), fc.stringMatching(/^[A-Za-z]{1,8}$/))
    .map(([auth, name]) => ({ ...form(auth, '/api/v1/settings', { full_name: name }), method: 'PATCH' })),
  fc
    .tuple(fc.constantFrom(HAMLET, OTHELLO), fc.stringMatching(/^[a-z]{1,8}$/))
    .map(([auth, t]) => form(auth, '/api/v1/saved_snippets', { title: t, content: `${t}!` })),
);

const digest = (h: RealmHandle) => sealRealmCheckpoint(h.version, h.state).checksum;

describe('a follower re-running the holder’s changes', () => {
  it('ends with exactly the holder’s state, every write applied once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(arbWrite, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 25 }),
        async (writes) => {
          const store = memoryStore();
          const holderInner = await openRealm({ store, snapshot: devSnapshot(), operations: ALL_OPS });
          const followerInner = await openRealm({ store, operations: ALL_OPS });
          const holder = leasedHandle(holderInner, {
            lease: { route: 'self', tick: () => Promise.resolve() },
            forward: () => Promise.reject(new Error('the holder forwards nothing')),
          });
          let lose = false;
          const forward: Forward = async (_a, request) => {
            const got = await holder.request(request);
            if (lose) {
              lose = false; // this answer is lost; the retry must not apply it again
              throw new ForwardError(true, 'answer lost');
            }
            return { status: got.status, body: got.body };
          };
          const follower = leasedHandle(followerInner, {
            lease: { route: { address: 'http://holder' }, tick: () => Promise.resolve() },
            forward,
            waitMs: 5000,
            retryMs: 0,
          });
          let applied = 0;
          for (const [request, viaFollower, loseAnswer] of writes) {
            const before = holderInner.version;
            lose = viaFollower && loseAnswer;
            const answer = await (viaFollower ? follower : holder).request(request);
            expect(answer.status).toBe(200);
            applied += holderInner.version - before;
            // At most one change per write, lost answer or not.
            expect(holderInner.version - before).toBeLessThanOrEqual(1);
          }
          await followerInner.catchUp();
          expect(followerInner.version).toBe(holderInner.version);
          // Every write changed the realm once (a full name equal to the old one: not at all).
          expect(applied).toBeGreaterThan(0);
          expect(applied).toBeLessThanOrEqual(writes.length);
          expect(followerInner.version).toBe(applied);
          expect(digest(followerInner)).toBe(digest(holderInner));
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);

  it('halts loudly on a change it cannot reproduce, keeping its last right state', async () => {
    const store = memoryStore();
    const holder = await openRealm({ store, snapshot: devSnapshot(), operations: ALL_OPS });
    const errors: unknown[] = [];
    // The follower lacks one of the holder's operations: its re-run cannot reach the same result.
    const follower = await openRealm({
      store,
      operations: ALL_OPS.filter((o) => o.def.name !== 'testAppendMark'),
      onBackgroundError: (e) => errors.push(e),
    });
    await holder.request(
      form(HAMLET, '/api/v1/messages', { type: 'stream', to: 'Denmark', topic: 'law', content: 'a' }),
    );
    await follower.catchUp();
    expect(digest(follower)).toBe(digest(holder));
    await holder.run('testAppendMark', { userId: 4 }, { mark: 'x' });
    await expect(follower.catchUp()).rejects.toBeInstanceOf(RealmHaltedError);
    expect(follower.halted).toBeInstanceOf(RealmHaltedError);
    expect(follower.version).toBe(1);
    const answer = await follower.request({
      method: 'GET',
      url: '/api/v1/users/me',
      headers: { authorization: HAMLET },
    });
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: 'REALM_HALTED', change: 2 });
    expect(errors).toHaveLength(1);
  });
});
