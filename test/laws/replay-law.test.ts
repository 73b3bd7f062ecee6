/**
 * The replay law: whatever wire form a request arrives in — a parameter under its alias (`subject`
 * for `topic`), JSON text compact or spaced, in the query string or the body, a urlencoded body or
 * parsed fields (multipart), a repeated name, a path parameter also sent as a field, unknown
 * parameters (`__proto__` among them), a lower-case method, a trailing slash — recording it through
 * the realm handle and replaying it from the stored record gives the identical status, body, events
 * and state; the handle's answer is the wire layer's answer to the original request; and a handle
 * reopened from the store holds the same realm. On the memory, SQLite and PostgreSQL stores (PGlite
 * without DATABASE_URL).
 *
 * Generated from the operations' parameter specs (names, aliases, JSON or raw) and the plausible
 * calls of every operation in OPERATIONS (random parameters for the few without plausible calls).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom, type OpContext } from '../../src/core/context';
import type { DefinedOperation } from '../../src/core/operation';
import type { OpResult } from '../../src/core/result';
import { snapshotRealm } from '../../src/core/snapshot/export';
import type { RealmState } from '../../src/core/state';
import { openChange } from '../../src/host/change';
import { applyInput } from '../../src/host/handle-input';
import { PlaybackPasswordHasher } from '../../src/host/passwords';
import { PlaybackRandom } from '../../src/host/random';
import { openRealm, type HandleResult } from '../../src/host/realm-handle';
import type { RealmStore } from '../../src/host/store';
import { OPERATIONS } from '../../src/ops/index';
import { memoryStore } from '../../src/stores/memory/index';
import { postgresStore } from '../../src/stores/postgres/index';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { arbParams } from '../../src/testing/arbitraries';
import { basicAuthHeader } from '../../src/wire/auth';
import { handleApiRequest, type ApiRequest } from '../../src/wire/handle';
import { openDatabase, uniqueSchema, type PgHandle } from '../stores/pg-backing';
import { devRealm } from '../support/realm';
import { plausibleCallsByOp, type Call } from './plausible';
import { fcParams } from './runs';
import { encodePathSegment } from '../support/path-segment';

const NOW = 1795219200;
/** Names no operation reads, some of them dangerous as object keys. */
const UNKNOWN = ['__proto__', 'constructor', 'toString', 'client', 'unknown_param', 'subject', 'padding'];

interface Case {
  readonly call: Call;
  readonly request: ApiRequest;
}

/** The wire text of a value: JSON for JSON parameters (compact or spaced), the string for raw ones. */
function text(value: unknown, json: boolean, spaced: boolean): string {
  if (!json && typeof value === 'string') return value;
  return JSON.stringify(value, null, spaced ? 1 : undefined) ?? 'null';
}

/** Every wire form of one library call, generated from the operation's parameter specs. */
function arbWireForm(state: RealmState, call: Call): fc.Arbitrary<ApiRequest> {
  const { def } = call.op;
  const specs = new Map(def.params.map((p) => [p.name, p]));
  const read = new Set(def.params.flatMap((p) => (p.alias === undefined ? [p.name] : [p.name, p.alias])));
  const entries = Object.entries(call.params);
  const flags = fc.array(fc.boolean(), { minLength: entries.length, maxLength: entries.length });
  return fc
    .record({
      alias: flags,
      inQuery: flags,
      spaced: flags,
      fieldsObject: fc.boolean(),
      decoy: fc.boolean(),
      unknown: fc.subarray(UNKNOWN.filter((n) => !read.has(n) && !(def.pathParams ?? []).includes(n))),
      unknownValue: fc.constantFrom('', 'x', '{"a": 1}', 'p'.repeat(3000)),
      lowerCase: fc.boolean(),
      slash: fc.boolean(),
    })
    .map((f) => {
      let path = def.path;
      const query: Array<[string, string]> = [];
      const body: Array<[string, string]> = [];
      entries.forEach(([name, value], i) => {
        const spec = specs.get(name);
        const wire = text(value, spec?.json ?? false, f.spaced[i]!);
        if (def.pathParams?.includes(name)) {
          path = path.replace(`{${name}}`, encodePathSegment(wire));
          // A field of the same name: the URL's value wins.
          if (f.decoy) body.push([name, '999999']);
          return;
        }
        const spelled = spec?.alias !== undefined && f.alias[i]! ? spec.alias : name;
        if (f.inQuery[i]!) query.push([spelled, wire]);
        else {
          // A repeated name: the query's value loses to the body's.
          if (f.decoy) query.push([spelled, 'decoy']);
          body.push([spelled, wire]);
        }
      });
      for (const name of f.unknown) body.push([name, f.unknownValue]);
      path = path.replace(/\{\w+\}/g, '1');
      const user = state.users.get(call.userId);
      const headers = user ? { authorization: basicAuthHeader(user.delivery_email, user.api_key) } : {};
      const qs = new URLSearchParams(query).toString();
      const form: string | Record<string, string> = f.fieldsObject
        ? Object.assign(Object.create(null) as Record<string, string>, Object.fromEntries(body))
        : new URLSearchParams(body).toString();
      return {
        method: f.lowerCase ? def.method.toLowerCase() : def.method,
        url: `/api/v1${path}${f.slash ? '/' : ''}${qs === '' ? '' : `?${qs}`}`,
        headers,
        body: form,
      };
    });
}

/** A few wire forms of plausible calls to every operation (random parameters where none is plausible). */
function cases(state: RealmState, perOp: number, seed: number): Case[] {
  const plausible = plausibleCallsByOp(state);
  const users = [...state.users.values()].filter((u) => u.is_active).map((u) => u.user_id);
  const out: Case[] = [];
  OPERATIONS.forEach((op, i) => {
    const calls: fc.Arbitrary<Call> =
      plausible.get(op.def.name) ??
      fc
        .tuple(fc.constantFrom(...users), arbParams(op as DefinedOperation, state))
        .map(([userId, params]) => ({ op: op as DefinedOperation, userId, params }));
    const arb = calls.chain((call) => arbWireForm(state, call).map((request) => ({ call, request })));
    out.push(...fc.sample(arb, { numRuns: perOp, seed: seed + i }));
  });
  return out;
}

/** Whether a request sends a parameter `name` (in its query string or its body). */
function sends(request: ApiRequest, name: string): boolean {
  const q = request.url.indexOf('?');
  const query = new URLSearchParams(q < 0 ? '' : request.url.slice(q + 1));
  const body = request.body;
  return (
    query.has(name) ||
    (typeof body === 'string' ? new URLSearchParams(body).has(name) : body !== undefined && name in body)
  );
}

/** What a run answered, for comparison: status, body, events and the realm it left. */
function outcome(r: OpResult): { status: number; body: unknown; events: unknown; realm: string } {
  return {
    status: r.status,
    body: r.body,
    events: r.events,
    realm: JSON.stringify(snapshotRealm(r.state)),
  };
}

/** The context a stored change replays with: its clock, random bytes and hasher answers. */
function playback(change: ReturnType<typeof openChange>): OpContext {
  return {
    now: change.now,
    random: new PlaybackRandom(change.random, change.version),
    passwords: new PlaybackPasswordHasher(change.passwords ?? [], change.version),
    ...(change.deleteTopic ? { deleteTopic: change.deleteTopic as never } : {}),
  };
}

interface Backing {
  open(): Promise<RealmStore>;
  cleanup(): Promise<void>;
}

let pg: PgHandle | undefined;
const BACKINGS: Record<string, () => Promise<Backing>> = {
  memory: async () => {
    const store = memoryStore();
    // One store shared by the handles, as a database would be; closing it keeps its records.
    return { open: async () => store, cleanup: async () => {} };
  },
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-realm-replay-law-'));
    return {
      open: async () => sqliteStore({ filename: join(dir, 'realm.db'), realm: 'law' }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
  postgres: async () => {
    pg ??= await openDatabase();
    const db = pg;
    const schema = uniqueSchema();
    return {
      open: () => postgresStore({ client: db.client, realm: 'law', schema, writerThread: false }),
      cleanup: async () => {
        await db.client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      },
    };
  },
};

afterAll(async () => {
  await pg?.end();
});

describe('the replay law', () => {
  const state = devRealm();
  const seed = Number(process.env['FC_SEED'] ?? 23);
  const perOp = fcParams(6).numRuns ?? 6;
  let all: Case[];
  beforeAll(() => {
    all = cases(state, perOp, seed);
  });

  it('covers every operation, and aliases among the wire forms', () => {
    expect(new Set(all.map((c) => c.call.op.def.name))).toEqual(new Set(OPERATIONS.map((o) => o.def.name)));
    const sent = all.map(
      (c) => `${typeof c.request.body === 'string' ? c.request.body : ''}&${c.request.url}`,
    );
    expect(sent.some((s) => /(^|[&?])subject=/.test(s))).toBe(true);
  });

  for (const [name, makeBacking] of Object.entries(BACKINGS)) {
    it(`${name}: a recorded request replays to the identical status, body, events and state`, async () => {
      const backing = await makeBacking();
      try {
        const store = await backing.open();
        const ctx = { now: NOW, random: seededRandom(seed) };
        const handle = await openRealm({ store, initialState: state, ctx, checkpoints: false });
        const ran: Array<{ before: RealmState; version: number; result: HandleResult; request: ApiRequest }> =
          [];
        for (const c of all) {
          const before = handle.state;
          const version = handle.version;
          ran.push({ before, version, result: await handle.request(c.request), request: c.request });
        }
        const last = handle.state;
        const changes = await store.changesSince(0);
        const recorded = ran.filter((r) => r.result.version !== r.version);
        expect(changes.map((c) => c.version)).toEqual(recorded.map((r) => r.result.version));
        // Every operation that changed the realm at least once was recorded and replayed below.
        const written = new Set(recorded.map((r) => r.request.method.toUpperCase() + ' ' + r.request.url));
        expect(written.size).toBeGreaterThan(5);
        // A message sent with `subject` (the legacy name of `topic`) is among the recorded changes.
        expect(recorded.some((r) => sends(r.request, 'subject'))).toBe(true);
        let chain = 0;
        for (const [i, sealed] of changes.entries()) {
          const change = openChange(sealed, `${name}, change ${sealed.version}`, chain);
          chain = sealed.checksum;
          const r = recorded[i]!;
          const replayed = applyInput(
            new Map(OPERATIONS.map((o) => [o.def.name, o])),
            r.before,
            change.input,
            playback(change),
          );
          const context = `${r.request.method} ${r.request.url} ${JSON.stringify(r.request.body).slice(0, 300)}`;
          expect(outcome(replayed), context).toEqual(outcome(r.result));
          // The handle answered what the wire layer answers to the original request.
          expect(outcome(handleApiRequest(r.before, r.request, playback(change))), context).toEqual(
            outcome(r.result),
          );
        }
        // Requests that changed nothing: the wire layer's answer too.
        for (const r of ran.filter((x) => x.result.version === x.version)) {
          const pure = handleApiRequest(r.before, r.request, { now: NOW, random: seededRandom(1) });
          expect({ status: pure.status, body: pure.body }, `${r.request.method} ${r.request.url}`).toEqual({
            status: r.result.status,
            body: r.result.body,
          });
        }
        await handle.close();
        const again = await openRealm({ store: await backing.open(), checkpoints: false });
        expect(again.version).toBe(changes.length);
        expect(JSON.stringify(snapshotRealm(again.state))).toBe(JSON.stringify(snapshotRealm(last)));
        await again.close();
      } finally {
        await backing.cleanup();
      }
    }, 240_000);
  }
});
