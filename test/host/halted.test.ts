/**
 * A divergence is contained: a handle that cannot apply another writer's stored change (a bug, a
 * version skew between processes) stops answering for that realm — a 503 `REALM_HALTED` naming the
 * change and the reason, reads and event queues included, said once in its log — while the writer
 * and other realms go on (docs/persistence.md, "When a replay diverges").
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { seededRandom } from '../../src/core/context';
import { errors } from '../../src/core/errors';
import { defineOperation } from '../../src/core/operation';
import { param } from '../../src/core/params';
import { failure } from '../../src/core/result';
import { RealmHaltedError } from '../../src/host/errors';
import { withEventQueues } from '../../src/host/live-realm';
import { openRealm } from '../../src/host/realm-handle';
import { memoryStore } from '../../src/stores/memory/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast, devRealm, devSnapshot } from '../support/realm';

const ctx = { now: 1795219200, random: seededRandom(3) };
const hamlet = { userId: cast.hamlet };

/** `appendMark` as another version of the code would run it: it refuses what the writer accepted. */
const skewedMark = defineOperation({
  name: appendMark.def.name,
  method: 'POST',
  path: '/test/append_mark',
  operationId: 'test-append-mark',
  params: [param('mark', z.string(), { required: true })],
  handler: ({ state }) => failure(state, errors.badRequest('No marks in this version')),
});
const SKEWED = [...ALL_OPS.filter((o) => o.def.name !== appendMark.def.name), skewedMark];

function auth(userId: number): Record<string, string> {
  const u = devRealm().users.get(userId)!;
  return { authorization: basicAuthHeader(u.delivery_email, u.api_key) };
}

describe('a handle that cannot apply a stored change', () => {
  it('refuses that realm with a 503 naming the change, once in its log, while the writer goes on', async () => {
    const store = memoryStore();
    const writer = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS });
    const logged: unknown[] = [];
    const reader = await openRealm({
      store,
      ctx,
      operations: SKEWED,
      checkpoints: false,
      onBackgroundError: (e) => logged.push(e),
    });
    const live = withEventQueues(reader);
    await writer.run(appendMark, hamlet, { mark: '!' });

    const me = { method: 'GET', url: '/api/v1/users/me', headers: auth(cast.hamlet) };
    const refused = await reader.request(me);
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ result: 'error', code: 'REALM_HALTED', version: 0, change: 1 });
    expect(String(refused.body.msg)).toMatch(
      /halted at version 0: change 1 could not be applied \(Replaying change 1 diverged from the recorded result: status 400, recorded 200\)/,
    );
    expect(reader.halted).toBeInstanceOf(RealmHaltedError);
    expect(reader.version).toBe(0);
    // Everything is refused from now on, without touching the store: writes, reads, event queues.
    const write = {
      method: 'POST',
      url: '/api/v1/test/append_mark',
      headers: auth(cast.hamlet),
      body: 'mark=%22x%22',
    };
    expect((await reader.request(write)).status).toBe(503);
    expect(
      (await live.request({ method: 'POST', url: '/api/v1/register', headers: auth(cast.hamlet) })).status,
    ).toBe(503);
    expect((await live.request(me)).status).toBe(503);
    await expect(reader.run(skewedMark, hamlet, { mark: '?' })).rejects.toBeInstanceOf(RealmHaltedError);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toBe(reader.halted);

    // The writer, and another realm, are unaffected.
    expect((await writer.request(me)).status).toBe(200);
    expect((await writer.run(appendMark, hamlet, { mark: '?' })).version).toBe(2);
    const other = await openRealm({ store: memoryStore(), snapshot: devSnapshot(), ctx, operations: SKEWED });
    expect((await other.request(me)).status).toBe(200);

    live.close();
    await reader.close();
    await writer.close();
    await other.close();
    // The store itself is intact: a handle with the writer's code opens it at the writer's version.
    const again = await openRealm({ store, operations: ALL_OPS });
    expect(again.version).toBe(2);
    await again.close();
  });

  it('halts on a change written with an operation it does not have', async () => {
    const store = memoryStore();
    const writer = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS });
    const logged: unknown[] = [];
    const reader = await openRealm({
      store,
      ctx,
      operations: ALL_OPS.filter((o) => o.def.name !== appendMark.def.name),
      onBackgroundError: (e) => logged.push(e),
    });
    await writer.run(appendMark, hamlet, { mark: '!' });
    await expect(reader.catchUp()).rejects.toThrow(/operation testAppendMark is not among this handle's/);
    expect(reader.halted?.change).toBe(1);
    expect(logged).toHaveLength(1);
    await reader.close();
    await writer.close();
  });
});
