import { readFileSync } from 'node:fs';
import type * as z from 'zod/mini';
import type { snapshotDocumentSchema } from '../../src/core/snapshot/format';
import { createRealm, parseRealm, type RealmOptions } from '../../src/core/snapshot/create';
import { seededRandom, type OpContext } from '../../src/core/context';
import type { RealmState } from '../../src/core/state';
import type { OpResult } from '../../src/core/result';
import { handleApiRequest } from '../../src/wire/handle';
import { basicAuthHeader } from '../../src/wire/auth';

type Draft = z.input<typeof snapshotDocumentSchema>;
/** A snapshot tests may edit: every section present (as in the fixture), typed like `createRealm`'s input. */
export type EditableSnapshot = { [K in keyof Draft]-?: Exclude<Draft[K], undefined> };

const fixtureText = () => readFileSync(new URL('../fixtures/dev-realm.json', import.meta.url), 'utf8');

/** The dev-realm fixture as JSON (a fresh copy each call, so tests may edit it). */
export function devSnapshot(): EditableSnapshot {
  return JSON.parse(fixtureText());
}

/** Sections as loose records, for tests that break a snapshot on purpose (load it with `parseRealm`). */
export type LooseSnapshot = Record<string, unknown> & Record<string, Array<Record<string, unknown>>>;

/** The dev-realm fixture as loose records (a fresh copy each call). */
export function looseDevSnapshot(): LooseSnapshot {
  return JSON.parse(fixtureText());
}

/**
 * `createRealm` for a value of unknown type (tests that break snapshots on purpose): `parseRealm`,
 * throwing its `SnapshotError`.
 */
export function realmFromUnknown(value: unknown, options?: RealmOptions): RealmState {
  const parsed = parseRealm(value, options);
  if (!parsed.ok) throw parsed.error;
  return parsed.state;
}

let cached: RealmState | undefined;
/** The dev realm, loaded once (states are immutable, so sharing is safe). */
export function devRealm(options?: RealmOptions): RealmState {
  if (options) return createRealm(devSnapshot(), options);
  cached ??= createRealm(devSnapshot(), { random: seededRandom(1) });
  return cached;
}

/** The fixture's cast, by the names Zulip's own test suite uses. */
export const cast = {
  desdemona: 1,
  iago: 2,
  shiva: 3,
  hamlet: 4,
  cordelia: 5,
  othello: 6,
  prospero: 7,
  aaron: 8,
  zoe: 9,
  polonius: 10,
  defaultBot: 11,
  outgoingBot: 12,
  embeddedBot: 13,
  exEmployee: 14,
  imported: 15,
  welcomeBot: 16,
} as const;
export type CastName = keyof typeof cast;

export const as = (name: CastName) => ({ userId: cast[name] });

/** A deterministic context for tests. */
export const testCtx = (over: OpContext = {}): OpContext => ({
  now: 1795219200,
  random: seededRandom(42),
  ...over,
});

/** Calls the wire layer as a user of the realm, with params as form fields. */
export function wire(
  state: RealmState,
  who: CastName | null,
  method: string,
  path: string,
  params: Record<string, string> = {},
  ctx: OpContext = testCtx(),
): OpResult {
  const user = who === null ? undefined : state.users.get(cast[who]);
  const headers: Record<string, string> = user
    ? { authorization: basicAuthHeader(user.delivery_email, user.api_key) }
    : {};
  const isGet = method === 'GET';
  const qs = new URLSearchParams(params).toString();
  return handleApiRequest(
    state,
    { method, url: `/api/v1${path}${isGet && qs ? `?${qs}` : ''}`, headers, ...(isGet ? {} : { body: qs }) },
    ctx,
  );
}
