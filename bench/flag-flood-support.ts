/**
 * What bench/hostile.ts and bench/flag-flood.ts share: the dev realm with 5,000 more messages in
 * Verona (read by Hamlet), the flag flip they flood it with (mark-unread / mark-read of all of
 * them through POST /messages/flags/narrow), and the login and request helpers.
 */
import { readFileSync } from 'node:fs';
import type { RealmSnapshotInput } from '../src/core/snapshot/format';
import { basicAuthHeader } from '../src/wire/auth';

/** Messages added to Verona: each mark-unread event names them all (~205 KB of JSON). */
export const MESSAGES = 5000;

interface SnapUser {
  user_id: number;
  email: string;
  api_key: string;
}

export type FloodSnapshot = RealmSnapshotInput & { users: SnapUser[]; messages: Record<string, unknown>[] };

/** The dev realm plus `MESSAGES` messages in Verona, 50 topics, read by Hamlet (user 4). */
export function floodSnapshot(): FloodSnapshot {
  const snap = JSON.parse(
    readFileSync(new URL('../test/fixtures/dev-realm.json', import.meta.url), 'utf8'),
  ) as FloodSnapshot;
  for (let i = 0; i < MESSAGES; i++)
    snap.messages.push({
      id: 10_000 + i,
      sender_id: 2,
      stream_id: 1,
      topic: `topic ${i % 50}`,
      content: `message ${i}`,
      timestamp: 1735700000 + i,
      flags: { '4': ['read'] },
    });
  return snap;
}

/** The Authorization header of user `id` in `snap`. */
export function authFor(snap: FloodSnapshot, id: number): string {
  const u = snap.users.find((x) => x.user_id === id)!;
  return basicAuthHeader(u.email, u.api_key);
}

/** The form of POST /messages/flags/narrow that marks every message of Verona (op `add`: read, `remove`: unread). */
export const flip = (op: 'add' | 'remove') => ({
  op,
  flag: 'read',
  anchor: 'oldest',
  num_before: '0',
  num_after: String(MESSAGES),
  narrow: JSON.stringify([{ operator: 'channel', operand: 'Verona' }]),
});

/** A form-encoded POST to `base`'s API. */
export const post = (base: string, authorization: string, path: string, body: Record<string, string>) =>
  fetch(`${base}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(body).toString(),
  });
