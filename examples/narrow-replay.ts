/**
 * Replays the "mark all as read" benchmark: builds a simulated organization, then, as the user who
 * has read nothing, sends POST /messages/flags/narrow requests of 5000 messages each — the way
 * Zulip's web app pages through a large "mark as read" — until the newest message, and prints how
 * long each request took.
 *
 *   npx tsx examples/narrow-replay.ts [--preset small|medium|large] [--seed 1] [--users N]
 *                                     [--channels N] [--messages N] [--window 5000] [--json]
 *
 * `replayNarrow(options)` is the same thing as a function (see examples/narrow-replay.test.ts).
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { updateMessageFlagsForNarrow, type OpResult, type RealmState } from 'chat-realm';
import { HEAVY_USER_ID, simulateRealm, type Preset } from 'chat-realm/testing';

export interface ReplayOptions {
  readonly preset?: Preset;
  readonly seed?: number;
  readonly users?: number;
  readonly channels?: number;
  readonly messages?: number;
  /** Messages per request (Zulip's web app uses 5000, the server's maximum). */
  readonly window?: number;
}

export interface ReplayRequest {
  readonly processed: number;
  readonly updated: number;
  readonly ms: number;
}

export interface ReplayReport {
  readonly users: number;
  readonly messages: number;
  readonly simulateMs: number;
  readonly unreadBefore: number;
  readonly requests: readonly ReplayRequest[];
  readonly totalMs: number;
  readonly unreadAfter: number;
  /** The realm after every request (immutable: the simulated one is untouched). */
  readonly state: RealmState;
}

const ALL: readonly never[] = [];

/** What this script reads from a POST /messages/flags/narrow response. */
interface FlagsResponse {
  readonly processed: number;
  readonly updated: number;
  readonly lastProcessedId: number | null;
  readonly foundNewest: boolean;
}

function flagsResponse(r: OpResult, what: string): FlagsResponse {
  const body = r.body;
  if (body.result !== 'success') throw new Error(`${what} failed: ${JSON.stringify(body)}`);
  return {
    processed: body['processed_count'] as number,
    updated: body['updated_count'] as number,
    lastProcessedId: body['last_processed_id'] as number | null,
    foundNewest: body['found_newest'] as boolean,
  };
}

/** The user's unread messages, counted with the same request over `is:unread` (its new state discarded). */
function countUnread(state: RealmState, userId: number, now: number): number {
  let count = 0;
  let anchor: string | number = 'oldest';
  for (;;) {
    const r = updateMessageFlagsForNarrow(
      state,
      { userId },
      {
        anchor,
        include_anchor: anchor === 'oldest',
        num_before: 0,
        num_after: 5000,
        narrow: [{ operator: 'is', operand: 'unread' }],
        op: 'add',
        flag: 'read',
      },
      { now },
    );
    const body = flagsResponse(r, 'counting');
    count += body.processed;
    if (body.foundNewest || body.lastProcessedId === null) return count;
    anchor = body.lastProcessedId;
  }
}

export function replayNarrow(options: ReplayOptions = {}): ReplayReport {
  const window = options.window ?? 5000;
  let t = performance.now();
  const realm = simulateRealm({
    preset: options.preset ?? 'small',
    seed: options.seed ?? 1,
    ...(options.users === undefined ? {} : { users: options.users }),
    ...(options.channels === undefined ? {} : { channels: options.channels }),
    ...(options.messages === undefined ? {} : { messages: options.messages }),
  });
  const simulateMs = performance.now() - t;
  const now = realm.now ?? 0;
  const me = { userId: HEAVY_USER_ID };
  const unreadBefore = countUnread(realm, me.userId, now);

  // Page from the oldest message to the newest, each request starting after the last one processed.
  const requests: ReplayRequest[] = [];
  let state = realm;
  let anchor: string | number = 'oldest';
  const start = performance.now();
  for (;;) {
    t = performance.now();
    const r = updateMessageFlagsForNarrow(
      state,
      me,
      {
        anchor,
        include_anchor: anchor === 'oldest',
        num_before: 0,
        num_after: window,
        narrow: ALL,
        op: 'add',
        flag: 'read',
      },
      { now },
    );
    const ms = performance.now() - t;
    const body = flagsResponse(r, `request ${requests.length + 1}`);
    requests.push({ processed: body.processed, updated: body.updated, ms });
    state = r.state;
    if (body.foundNewest || body.lastProcessedId === null) break;
    anchor = body.lastProcessedId;
  }
  const totalMs = performance.now() - start;
  return {
    users: realm.users.maxKey(),
    messages: realm.messages.count,
    simulateMs,
    unreadBefore,
    requests,
    totalMs,
    unreadAfter: countUnread(state, me.userId, now),
    state,
  };
}

function formatReport(report: ReplayReport): string {
  const lines = [
    `organization: ${report.users} users, ${report.messages} messages (simulated in ${report.simulateMs.toFixed(0)} ms)`,
    `user ${HEAVY_USER_ID}: ${report.unreadBefore} unread before`,
    ...report.requests.map(
      (r, i) =>
        `  request ${String(i + 1).padStart(3)}: ${String(r.processed).padStart(5)} processed, ${String(r.updated).padStart(5)} marked read, ${r.ms.toFixed(2)} ms`,
    ),
    `total: ${report.requests.length} requests in ${report.totalMs.toFixed(1)} ms; ${report.unreadAfter} unread after`,
  ];
  return lines.join('\n');
}

function main(argv: readonly string[]): void {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      preset: { type: 'string', default: 'small' },
      seed: { type: 'string', default: '1' },
      users: { type: 'string' },
      channels: { type: 'string' },
      messages: { type: 'string' },
      window: { type: 'string', default: '5000' },
      json: { type: 'boolean', default: false },
    },
  });
  const preset = values.preset;
  if (preset !== 'small' && preset !== 'medium' && preset !== 'large')
    throw new Error(`unknown preset ${preset}`);
  const report = replayNarrow({
    preset,
    seed: Number(values.seed),
    window: Number(values.window),
    ...(values.users === undefined ? {} : { users: Number(values.users) }),
    ...(values.channels === undefined ? {} : { channels: Number(values.channels) }),
    ...(values.messages === undefined ? {} : { messages: Number(values.messages) }),
  });
  if (values.json) {
    const { state: _state, ...rest } = report;
    console.log(JSON.stringify(rest));
  } else console.log(formatReport(report));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  main(process.argv.slice(2));
