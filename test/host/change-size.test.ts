/**
 * The change log stores only what a replay needs, and one stored change has a size bound
 * (`maxChangeBytes`) with a clear error (docs/persistence.md, "Retention and size").
 */
import { describe, expect, it } from 'vitest';
import { openChange } from '../../src/host/change';
import { ChangeTooLargeError, PersistError } from '../../src/host/errors';
import { openRealm } from '../../src/host/realm-handle';
import { memoryStore } from '../../src/stores/memory/index';
import { seededRandom } from '../../src/core/context';
import { basicAuthHeader } from '../../src/wire/auth';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast, devRealm, devSnapshot } from '../support/realm';

const ctx = { now: 1795219200, random: seededRandom(5) };
const hamlet = { userId: cast.hamlet };

function auth(userId: number): Record<string, string> {
  const u = devRealm().users.get(userId)!;
  return { authorization: basicAuthHeader(u.delivery_email, u.api_key) };
}

describe('what a stored change holds', () => {
  it('stores a wire request padded to the body limit as its parameters only', async () => {
    const store = memoryStore();
    const h = await openRealm({ store, snapshot: devSnapshot(), ctx, operations: ALL_OPS });
    const padding = 'p'.repeat(1_000_000);
    const r = await h.request({
      method: 'POST',
      url: `/api/v1/saved_snippets?junk=${'q'.repeat(1000)}`,
      headers: auth(cast.hamlet),
      body: `title=Hello&content=World&padding=${padding}&more=${padding}`,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ignored_parameters_unsupported: ['junk', 'more', 'padding'] });
    const [stored] = await store.changesSince(0);
    expect(stored!.payload.length).toBeLessThan(400);
    expect(openChange(stored!, 'test', 0).input).toMatchObject({
      url: '/api/v1/saved_snippets',
      body: { title: 'Hello', content: 'World' },
    });
    const before = h.state;
    await h.close();
    const again = await openRealm({ store, operations: ALL_OPS, checkpoints: false });
    expect([...again.state.savedSnippets.values()]).toEqual([...before.savedSnippets.values()]);
  });

  it('refuses a change larger than maxChangeBytes: not stored, not applied, a clear error', async () => {
    const store = memoryStore();
    const h = await openRealm({
      store,
      snapshot: devSnapshot(),
      ctx,
      operations: ALL_OPS,
      maxChangeBytes: 1000,
    });
    await h.run(appendMark, hamlet, { mark: 'é'.repeat(100) });
    const error = await h.run(appendMark, hamlet, { mark: 'é'.repeat(500) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PersistError);
    const cause = (error as PersistError).cause;
    expect(cause).toBeInstanceOf(ChangeTooLargeError);
    expect((cause as Error).message).toMatch(
      /^Change 2 would store 1\d{3} bytes, more than the limit of 1000 \(maxChangeBytes\); it was not applied$/,
    );
    expect(h.version).toBe(1);
    expect((await store.changesSince(0)).map((c) => c.version)).toEqual([1]);
    await h.close();
  });
});
