import { describe, expect, it } from 'vitest';
import { startExpress } from '../../examples/express';
import { startFastify } from '../../examples/fastify';
import { startFetch } from '../../examples/fetch';
import { startHono } from '../../examples/hono';
import type { RunningExample } from '../../examples/shared';
import { openRealm, type RealmHandle } from '../../src/host/realm-handle';
import { memoryStore } from '../../src/stores/memory/index';
import { basicAuthHeader } from '../../src/wire/auth';
import { expectValidResponse } from '../support/openapi';
import { cast, devSnapshot } from '../support/realm';

const examples: ReadonlyArray<[string, (realm: RealmHandle) => Promise<RunningExample>]> = [
  ['Hono', (realm) => startHono(realm)],
  ['Express', (realm) => startExpress(realm)],
  ['Fastify', (realm) => startFastify(realm)],
  ['Fetch handler', (realm) => startFetch(realm)],
];

describe('examples', () => {
  it.each(examples)('%s serves the realm on a loopback port', async (name, start) => {
    const realm = await openRealm({ store: memoryStore(), snapshot: devSnapshot() });
    const hamlet = realm.state.users.get(cast.hamlet)!;
    const authorization = basicAuthHeader(hamlet.delivery_email, hamlet.api_key);
    const running = await start(realm);
    try {
      expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

      const me = await fetch(`${running.url}/api/v1/users/me`, { headers: { authorization } });
      expect(me.status).toBe(200);
      const meBody = (await me.json()) as Record<string, unknown>;
      expectValidResponse('get-own-user', 200, meBody);
      expect(meBody['email']).toBe(hamlet.email);

      const form = new FormData();
      form.append('title', 'From an example');
      form.append('content', 'multipart');
      const created = await fetch(`${running.url}/api/v1/saved_snippets`, {
        method: 'POST',
        headers: { authorization },
        body: form,
      });
      expect(created.status).toBe(200);
      const createdBody = (await created.json()) as { saved_snippet_id: number };
      expectValidResponse('create-saved-snippet', 200, createdBody);
      expect(realm.state.savedSnippets.get(createdBody.saved_snippet_id)?.title).toBe('From an example');
      expect(realm.version).toBe(1);

      const patched = await fetch(`${running.url}/api/v1/settings`, {
        method: 'PATCH',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'twenty_four_hour_time=true',
      });
      expect(patched.status).toBe(200);
      expectValidResponse('update-settings', 200, await patched.json());
      expect(realm.state.users.get(cast.hamlet)?.settings.twenty_four_hour_time).toBe(true);

      const anonymous = await fetch(`${running.url}/api/v1/users/me`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toBe('Basic realm="zulip"');

      const missing = await fetch(`${running.url}/api/v1/no/such/endpoint`, { headers: { authorization } });
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ result: 'error', msg: 'Not Found', code: 'BAD_REQUEST' });

      // Over the handler's default limit (1 MiB): a JSON 413 from chat-realm, whatever the framework.
      const big = await fetch(`${running.url}/api/v1/saved_snippets`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: `title=t&content=${'x'.repeat(1024 * 1024 + 1)}`,
      });
      expect(big.status).toBe(413);
      expect(await big.json()).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });

      // The frameworks' own route beside the API; the bare Fetch handler answers only the API.
      const home = await fetch(`${running.url}/`);
      if (name === 'Fetch handler') expect(home.status).toBe(404);
      else expect(await home.text()).toContain('/api/v1');
    } finally {
      await running.close();
      await realm.close();
    }
  });

  it.each(examples)(
    '%s serves live clients: register, then GET /events receives the event',
    async (_name, start) => {
      const realm = await openRealm({ store: memoryStore(), snapshot: devSnapshot() });
      const auth = (id: number) => {
        const u = realm.state.users.get(id)!;
        return basicAuthHeader(u.delivery_email, u.api_key);
      };
      const running = await start(realm);
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      try {
        // Hamlet registers, as Zulip's clients do first.
        const registered = await fetch(`${running.url}/api/v1/register`, {
          method: 'POST',
          headers: { authorization: auth(cast.hamlet), ...form },
          body: 'event_types=["message"]',
        });
        expect(registered.status).toBe(200);
        const reg = (await registered.json()) as { queue_id: string | null; last_event_id: number };
        expectValidResponse('register-queue', 200, reg);
        expect(typeof reg.queue_id).toBe('string');

        // A long-poll that waits for the next event, then Iago posts to Denmark (Hamlet is subscribed).
        const poll = fetch(
          `${running.url}/api/v1/events?queue_id=${reg.queue_id}&last_event_id=${reg.last_event_id}`,
          { headers: { authorization: auth(cast.hamlet) } },
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
        const sent = await fetch(`${running.url}/api/v1/messages`, {
          method: 'POST',
          headers: { authorization: auth(cast.iago), ...form },
          body: 'type=stream&to=Denmark&topic=live&content=Hello%20Hamlet',
        });
        expect(sent.status).toBe(200);
        const answered = await poll;
        expect(answered.status).toBe(200);
        const body = (await answered.json()) as {
          events: Array<{ type: string; message?: { content: string } }>;
        };
        expectValidResponse('get-events', 200, body);
        expect(body.events).toEqual([
          expect.objectContaining({
            type: 'message',
            message: expect.objectContaining({ content: 'Hello Hamlet' }),
          }),
        ]);

        // A poll still waiting when the example stops is answered, so the server closes at once.
        const waiting = fetch(
          `${running.url}/api/v1/events?queue_id=${reg.queue_id}&last_event_id=${(body.events[0] as { id?: number }).id ?? 0}`,
          { headers: { authorization: auth(cast.hamlet) } },
        ).then(
          (r) => r.status,
          () => 'closed',
        );
        await new Promise((resolve) => setTimeout(resolve, 200));
        await running.close();
        expect([200, 'closed']).toContain(await waiting);
      } finally {
        await running.close().catch(() => undefined);
        await realm.close();
      }
    },
  );
});
