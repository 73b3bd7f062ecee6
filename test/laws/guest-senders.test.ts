import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/core/context';
import type { AddressedEvent } from '../../src/core/events';
import type { User } from '../../src/core/model/records';
import { isUserAccessRestricted } from '../../src/core/permissions/user-access';
import { createRealm } from '../../src/core/snapshot/create';
import type { RealmState } from '../../src/core/state';
import { getMessage, getMessages, getUsers, sendMessage } from '../../src/ops/index';
import { arbSnapshot } from '../../src/testing/arbitraries';
import { testCtx } from '../support/realm';
import { fcParams } from './runs';

/**
 * What a restricted guest receives never names a user GET /users hides from them (issue 31):
 * message events, GET /messages and GET /messages/{id} give such a sender as Zulip's finalize
 * does with `can_access_sender=False` ("Unknown user", `user{id}@…`, the placeholder avatar).
 * Over the permission matrix's restricted realms (shapes.ts `arbRealmCase`, third branch).
 */

/** Every string value in a JSON-like value. */
function strings(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') out.add(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value as Record<string, unknown>)) strings(v, out);
  return out;
}

/** The names (full name, emails) of the users GET /users hides from `guest`, none shared with a shown one. */
function hiddenNames(state: RealmState, guest: User): Set<string> {
  const body = getUsers(state, { userId: guest.user_id }, {}).body as { members?: User[] };
  const shown = new Set(
    (body.members ?? []).filter((m) => m.full_name !== 'Unknown user').map((m) => m.user_id),
  );
  const visibleNames = new Set<string>();
  for (const id of shown) {
    const u = state.users.get(id)!;
    visibleNames.add(u.full_name).add(u.email).add(u.delivery_email);
  }
  const out = new Set<string>();
  for (const u of state.users.values())
    if (!shown.has(u.user_id))
      for (const name of [u.full_name, u.email, u.delivery_email]) if (!visibleNames.has(name)) out.add(name);
  return out;
}

describe('restricted guests and the senders they cannot access', () => {
  it('no message a guest receives (events, GET /messages, GET /messages/{id}) names a hidden user', () => {
    let checked = 0;
    fc.assert(
      fc.property(arbSnapshot(), (snapshot) => {
        const restricted = {
          ...snapshot,
          realm: { ...snapshot.realm, can_access_all_users_group: 'role:members' as const },
        };
        let state = createRealm(structuredClone(restricted), { random: seededRandom(3) });
        const guests = [...state.users.values()].filter(
          (u) => u.is_active && isUserAccessRestricted(state, u),
        );
        if (guests.length === 0) return;
        const received = new Map<number, unknown[]>(guests.map((g) => [g.user_id, []]));
        // Every active human posts once to each channel with a guest subscriber (members may post
        // to public channels they are not subscribed to: those senders are the hidden ones).
        const senders = [...state.users.values()].filter((u) => u.is_active && !u.is_bot);
        for (const channel of state.channels.values())
          for (const sender of senders) {
            const r = sendMessage(
              state,
              { userId: sender.user_id },
              { type: 'stream', to: channel.stream_id, topic: 'leak?', content: 'hello' },
              testCtx(),
            );
            if (r.status !== 200) continue;
            state = r.state;
            for (const { users, event } of r.events as AddressedEvent[])
              for (const id of users) received.get(id)?.push(event);
          }
        for (const guest of guests) {
          const me = { userId: guest.user_id };
          const all = getMessages(state, me, { anchor: 'newest', num_before: 5000, num_after: 0 }, testCtx());
          expect(all.status).toBe(200);
          // A generated snapshot may give a user a row in a direct-message conversation they are
          // not part of (Zulip's rows of a conversation are its participants'): such a message's
          // `display_recipient` lists strangers in any server, so it is left out.
          const messages = (
            all.body as unknown as { messages: { id: number; display_recipient: unknown }[] }
          ).messages.filter(
            (m) =>
              !Array.isArray(m.display_recipient) ||
              m.display_recipient.some((r: { id: number }) => r.id === guest.user_id),
          );
          const singles = messages.map((m) => getMessage(state, me, { message_id: m.id }).body);
          const hidden = hiddenNames(state, guest);
          const seen = strings([received.get(guest.user_id), messages, singles]);
          for (const name of hidden)
            expect(
              seen.has(name),
              `guest ${guest.user_id} sees ${name} in ${JSON.stringify([received.get(guest.user_id), messages])}`,
            ).toBe(false);
          checked += hidden.size > 0 && messages.length > 0 ? 1 : 0;
        }
      }),
      fcParams(25),
    );
    // The property must have met hidden senders, not only realms without any.
    expect(checked).toBeGreaterThan(0);
  });
});
