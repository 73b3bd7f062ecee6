/**
 * POST /messages and GET /messages on the large simulated organization (10,000 users, 1,000
 * channels, 1,000,000 messages), each against:
 *
 * - a floor that does only the irreducible work: for a send, writing one (id, flags) row per
 *   recipient into preallocated mutable typed arrays (no checks, no persistence, no events); for a
 *   fetch, the index walk alone: the channel's (or topic's) last 1000 ids copied out;
 * - the store alone (`appendMessage`, `selectWindow`): our persistent structures without the
 *   operation's checks, mentions, events and message dicts;
 * - PostgreSQL with Zulip's layout (zerver_message, zerver_usermessage with its unique and partial
 *   flag indexes), the tables filled to the large preset's sizes with generated rows: a send is
 *   Zulip's transaction (INSERT the message, one INSERT … VALUES of a usermessage row per
 *   recipient); a fetch is Zulip's two queries (the usermessage ⋈ message window `ORDER BY id DESC
 *   LIMIT 1000`, then the message rows by id).
 *
 * Every figure is a median over batches after warm-up, from one run; `BENCH_PG_ROWS` sets the
 * usermessage row count (default: the realm's own, ~27.6 M), `--quick` uses the medium preset.
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { FLAG_BITS } from '../src/core/messages/flags';
import { appendMessage, nextMessageId } from '../src/core/messages/store-append';
import { topicMessageIds } from '../src/core/messages/query';
import { getMessage as readMessage } from '../src/core/messages/store';
import { renderMarkdown } from '../src/core/markdown';
import type { RealmState } from '../src/core/state';
import { buildNarrow, selectWindow } from '../src/narrow';
import { getMessages, sendMessage } from '../src/ops/index';
import { simulateRealm } from '../src/simulate/simulate';
import { interleavedSized, type Timing } from './interleave';
import { median } from './stats';
import { createZulipMessageTables } from './zulip-tables';

const PG_URL = process.env['BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** `BENCH_NO_PG=1` leaves the PostgreSQL baseline out (its load takes minutes). */
const NO_PG = process.env['BENCH_NO_PG'] === '1';
const SCHEMA = 'chat_realm_bench_messages';

/** A full collection before each measurement when node runs with --expose-gc (steadier medians). */
function settle(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Median µs per call over `batches` batches of `per` calls, after `warm` calls. */
function timeUs(fn: () => void, { warm = 200, batches = 15, per = 50 } = {}): number {
  settle();
  for (let i = 0; i < warm; i++) fn();
  const out: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < per; i++) fn();
    out.push(((performance.now() - t0) / per) * 1000);
  }
  return median(out);
}

async function timeUsAsync(fn: () => Promise<unknown>, { warm = 20, batches = 11, per = 10 } = {}) {
  for (let i = 0; i < warm; i++) await fn();
  const out: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < per; i++) await fn();
    out.push(((performance.now() - t0) / per) * 1000);
  }
  return median(out);
}

interface Target {
  readonly streamId: number;
  readonly subscribers: number[];
  readonly topic: string;
}

/** The channel with the most messages, its subscribers and its busiest topic (the fetch windows). */
function busiestChannel(state: RealmState): Target {
  let streamId = 0;
  let most = -1;
  for (const [id, list] of state.messages.byChannel)
    if (list.count > most) [streamId, most] = [id, list.count];
  const per = state.subscriptions.get(streamId);
  const subs = [...(per?.values() ?? [])]
    .filter((s) => s.active && state.users.get(s.user_id)?.is_active)
    .map((s) => s.user_id);
  return withBusiestTopic(state, { streamId, subscribers: subs, topic: '' });
}

function withBusiestTopic(state: RealmState, t: Target): Target {
  const topics = state.messages.byTopic.get(t.streamId);
  let topicKey = 0;
  let most = -1;
  for (const [k, list] of topics ?? []) if (list.count > most) [topicKey, most] = [k, list.count];
  return { ...t, topic: state.messages.foldedTopics.names.get(topicKey) ?? '' };
}

/** The channel whose active subscriber count is closest to `n`, with its busiest topic. */
function channelNear(state: RealmState, n: number): Target {
  let best: Target | undefined;
  for (const [streamId, per] of state.subscriptions) {
    const channel = state.channels.get(streamId);
    if (!channel || channel.is_archived) continue;
    const subs = [...per.values()]
      .filter((s) => s.active && state.users.get(s.user_id)?.is_active)
      .map((s) => s.user_id);
    if (best === undefined || Math.abs(subs.length - n) < Math.abs(best.subscribers.length - n)) {
      best = { streamId, subscribers: subs, topic: '' };
    }
  }
  return withBusiestTopic(state, best!);
}

interface SendRow {
  readonly name: string;
  readonly recipients: number;
  readonly opUs: number;
  readonly storeUs: number;
  readonly floorUs: number;
  readonly pgUs: number | null;
}

interface FetchRow {
  readonly name: string;
  readonly count: number;
  readonly op: Timing;
  readonly engine: Timing;
  readonly floor: Timing;
  readonly dictsFloor: Timing;
  readonly renderUs: number;
  readonly pgUs: number | null;
}

function measureSend(state: RealmState, t: Target, name: string): Omit<SendRow, 'pgUs'> {
  // The sender: a subscriber who is a member (not a guest), so the send is allowed.
  const sender = t.subscribers.find((u) => {
    const r = sendMessage(
      state,
      { userId: u },
      { type: 'stream', to: t.streamId, topic: t.topic, content: 'x' },
      { now: 1 },
    );
    return r.status === 200;
  })!;
  let s = state;
  let k = 0;
  const opUs = timeUs(() => {
    const r = sendMessage(
      s,
      { userId: sender },
      { type: 'stream', to: t.streamId, topic: t.topic, content: `Message ${k++}` },
      { now: 1_795_300_000 },
    );
    s = r.state;
  });
  let store = state.messages;
  const rows = t.subscribers.map((u) => [u, u === sender ? FLAG_BITS.read : 0] as const);
  const storeUs = timeUs(() => {
    store = appendMessage(
      store,
      {
        id: nextMessageId(store),
        sender,
        timestamp: 1_795_300_000,
        bits: 0,
        content: 'x',
        streamId: t.streamId,
        topic: t.topic,
        participants: [],
      },
      rows,
    );
  });
  // The floor: one (id, flags) row per recipient into preallocated mutable arrays.
  const cap = 20_000;
  const ids = t.subscribers.map(() => new Int32Array(cap));
  const flags = t.subscribers.map(() => new Uint16Array(cap));
  let at = 0;
  let id = 2_000_000;
  const floorUs = timeUs(() => {
    if (at === cap) at = 0;
    id++;
    for (let j = 0; j < ids.length; j++) {
      ids[j]![at] = id;
      flags[j]![at] = 0;
    }
    at++;
  });
  return { name, recipients: t.subscribers.length, opUs, storeUs, floorUs };
}

function measureFetch(state: RealmState, t: Target, byTopic: boolean): Omit<FetchRow, 'pgUs'> {
  const userId = t.subscribers[Math.floor(t.subscribers.length / 2)]!;
  const narrow = [
    { operator: 'channel', operand: t.streamId },
    ...(byTopic ? [{ operator: 'topic', operand: t.topic }] : []),
  ];
  const params = { anchor: 'newest', num_before: 1000, num_after: 0, narrow };
  const first = getMessages(state, { userId }, params);
  const count = (first.body['messages'] as unknown[]).length;
  const user = state.users.get(userId)!;
  const terms = narrow.map((n) => ({ ...n, negated: false }));
  const engine = () => {
    const built = buildNarrow(state, user, terms);
    if (!built.ok) throw new Error(built.error.msg);
    selectWindow(built.plan, 10 ** 16, 1000, 0, true);
  };
  // The floor: the index walk alone — the list's last 1000 ids copied out (no flags, no access).
  const key = state.messages.foldedTopics.ids.get(t.topic.toLowerCase());
  const list = byTopic
    ? state.messages.byTopic.get(t.streamId)!.get(key!)!
    : state.messages.byChannel.get(t.streamId)!;
  const out = new Int32Array(1000);
  const walk = () => {
    let left = 1000;
    for (let c = list.chunks.length - 1; c >= 0 && left > 0; c--) {
      const chunk = list.chunks[c]!;
      for (let i = chunk.length - 1; i >= 0 && left > 0; i--) out[--left] = chunk[i]!;
    }
  };
  // The dicts floor: the same walk, then the same 1000 message dicts copied from plain, fast-shaped
  // objects kept by id (as if every dict were stored ready-made: no flags, access or rendering).
  const plainById = new Map<number, object>();
  for (const m of first.body['messages'] as Array<{ id: number }>)
    plainById.set(m.id, JSON.parse(JSON.stringify(m)) as object);
  const dictsFloor = () => {
    walk();
    const dicts: object[] = [];
    for (let i = 0; i < 1000; i++) {
      const p = plainById.get(out[i]!);
      if (p !== undefined) dicts.push({ ...p });
    }
    return dicts;
  };
  settle();
  // Interleaved batch by batch, medians of wall and CPU time from the same run.
  const [op, eng, floor, dicts] = interleavedSized(
    [() => getMessages(state, { userId }, params), engine, walk, dictsFloor],
    { minBatchMs: 40, batches: 21, warm: 3 },
  ) as [Timing, Timing, Timing, Timing];
  // What a cold read adds: rendering the 1000 sources (a read after a restart, or of messages
  // that fell out of the bounded HTML memo).
  const sources: string[] = [];
  for (const m of first.body['messages'] as Array<{ id: number }>) {
    const record = readMessage(state.messages, m.id);
    if (record !== undefined) sources.push(record.content);
  }
  const renderUs = timeUs(
    () => {
      for (const text of sources) renderMarkdown(text);
    },
    { warm: 5, batches: 11, per: 3 },
  );
  return {
    name: byTopic ? 'by topic' : 'by channel',
    count,
    op,
    engine: eng,
    floor,
    dictsFloor: dicts,
    renderUs,
  };
}

// --- PostgreSQL with Zulip's layout --------------------------------------------------------------

async function pgClient(): Promise<pg.Client | null> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return client;
  } catch {
    return null;
  }
}

/** Fills Zulip's two tables to the realm's sizes with generated rows, then builds Zulip's indexes. */
async function loadPg(
  c: pg.Client,
  state: RealmState,
  rows: number,
  targets: Target[],
  log: (s: string) => void,
) {
  const messages = state.messages.count;
  await createZulipMessageTables(c, SCHEMA);
  log(`  pg: ${messages} messages, ${rows} usermessage rows (generated)`);
  const channels = state.channels.size;
  await c.query(
    `INSERT INTO zerver_message (id, subject, content, rendered_content, date_sent, has_attachment, has_image, has_link, sender_id, realm_id, recipient_id, is_channel_message)
     SELECT g, 'topic ' || (g % 50), 'message ' || g, '<p>message ' || g || '</p>', now(), false, false, false, g % 10000 + 1, 1, g % $1 + 1, true
     FROM generate_series(1, $2) g`,
    [channels, messages],
  );
  // The targets' messages in their real channels and topics, so the fetch windows are real ones.
  for (const t of targets) {
    const ids = state.messages.byChannel.get(t.streamId);
    if (!ids) continue;
    const all = ids.chunks.flatMap((ch) => [...ch]);
    const topicSet = new Set(topicMessageIds(state.messages, t.streamId, t.topic));
    await c.query(
      `UPDATE zerver_message SET recipient_id = $1, subject = CASE WHEN id = ANY($2::int[]) THEN $3 ELSE 'other' END WHERE id = ANY($4::int[])`,
      [100_000 + t.streamId, [...topicSet], t.topic, all],
    );
  }
  // Rows: every target subscriber gets a row for each of their channel's messages; the rest spread.
  let placed = 0;
  for (const t of targets) {
    const ids = state.messages.byChannel.get(t.streamId);
    if (!ids) continue;
    await c.query(
      `INSERT INTO zerver_usermessage (flags, message_id, user_profile_id)
       SELECT 1, m.id, u FROM zerver_message m, unnest($1::int[]) u WHERE m.recipient_id = $2`,
      [t.subscribers, 100_000 + t.streamId],
    );
    placed += ids.count * t.subscribers.length;
  }
  const rest = Math.max(0, rows - placed);
  await c.query(
    `INSERT INTO zerver_usermessage (flags, message_id, user_profile_id)
     SELECT 1, (g % $1) + 1, 20000 + (g / $1) FROM generate_series(0, $2 - 1) g`,
    [messages, rest],
  );
  log('  pg: building Zulip indexes');
  const um = (name: string, where: string) =>
    `CREATE INDEX zerver_usermessage_${name}_message_id ON zerver_usermessage (user_profile_id, message_id) WHERE ${where}`;
  for (const sql of [
    'ALTER TABLE zerver_usermessage ADD CONSTRAINT zerver_usermessage_user_profile_id_message_id_uniq UNIQUE (user_profile_id, message_id)',
    'CREATE INDEX zerver_usermessage_message_id ON zerver_usermessage (message_id)',
    um('starred', '(flags & 2) <> 0'),
    um('mentioned', '(flags & 8) <> 0'),
    um('unread', '(flags & 1) = 0'),
    um('has_alert_word', '(flags & 512) <> 0'),
    um('wildcard_mentioned', '(flags & 8) <> 0 OR (flags & 16) <> 0'),
    um('any_mentioned', '(flags & 120) <> 0'),
    um('is_private', '(flags & 2048) <> 0'),
    um('is_private_unread', '(flags & 2048) <> 0 AND (flags & 1) = 0'),
    um('active_mobile_push_notification', '(flags & 4096) <> 0'),
    'CREATE INDEX zerver_message_realm_recipient_id ON zerver_message (realm_id, recipient_id, id)',
    'CREATE INDEX zerver_message_realm_recipient_upper_subject ON zerver_message (realm_id, recipient_id, upper(subject), id DESC) WHERE is_channel_message',
    'CREATE INDEX zerver_message_realm_sender_recipient ON zerver_message (realm_id, sender_id, recipient_id)',
    'CREATE INDEX zerver_message_realm_id ON zerver_message (realm_id, id DESC)',
    'ANALYZE',
  ])
    await c.query(sql);
}

async function pgSend(c: pg.Client, t: Target, nextId: { id: number }): Promise<number> {
  const rows = t.subscribers;
  const values = rows.map((_, i) => `($${i * 2 + 1}, $${i * 2 + 2}, $${rows.length * 2 + 1})`).join(',');
  return timeUsAsync(async () => {
    const id = nextId.id++;
    await c.query('BEGIN');
    await c.query(
      `INSERT INTO zerver_message (id, subject, content, rendered_content, date_sent, has_attachment, has_image, has_link, sender_id, realm_id, recipient_id, is_channel_message)
       VALUES ($1, $2, $3, $4, now(), false, false, false, $5, 1, $6, true)`,
      [id, t.topic, 'Hello', '<p>Hello</p>', rows[0], 100_000 + t.streamId],
    );
    await c.query(`INSERT INTO zerver_usermessage (user_profile_id, flags, message_id) VALUES ${values}`, [
      ...rows.flatMap((u) => [u, 0]),
      id,
    ]);
    await c.query('COMMIT');
  });
}

async function pgFetch(c: pg.Client, t: Target, byTopic: boolean): Promise<number> {
  const userId = t.subscribers[Math.floor(t.subscribers.length / 2)]!;
  return timeUsAsync(async () => {
    const window = await c.query(
      `SELECT message_id, flags FROM zerver_usermessage JOIN zerver_message ON zerver_usermessage.message_id = zerver_message.id
       WHERE user_profile_id = $1 AND zerver_message.realm_id = 1 AND recipient_id = $2
       ${byTopic ? 'AND upper(subject) = upper($3)' : ''} ORDER BY message_id DESC LIMIT 1000`,
      byTopic ? [userId, 100_000 + t.streamId, t.topic] : [userId, 100_000 + t.streamId],
    );
    const ids = window.rows.map((r: { message_id: number }) => r.message_id);
    await c.query(
      `SELECT id, subject, content, rendered_content, date_sent, sender_id, recipient_id, has_link, has_image, has_attachment, last_edit_time, edit_history
       FROM zerver_message WHERE id = ANY($1::int[])`,
      [ids],
    );
  });
}

export async function runMessagesBench(opts: { quick: boolean; log: (s: string) => void }): Promise<string> {
  const { log } = opts;
  const preset = opts.quick ? 'medium' : 'large';
  log(`messages: simulating the ${preset} preset`);
  const state = simulateRealm({ preset, seed: 1 });
  const big = channelNear(state, 1000);
  const small = channelNear(state, 10);
  log(`messages: channels with ${big.subscribers.length} and ${small.subscribers.length} subscribers`);
  const sends = [
    measureSend(state, big, `${big.subscribers.length} subscribers`),
    measureSend(state, small, `${small.subscribers.length} subscribers`),
  ];
  const busy = busiestChannel(state);
  log(
    `messages: busiest channel ${busy.streamId}: ${state.messages.byChannel.get(busy.streamId)?.count} messages`,
  );
  const fetches = [measureFetch(state, busy, false), measureFetch(state, busy, true)];
  const fetchLoad = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  const fetchDate = new Date().toISOString().slice(0, 16).replace('T', ' ');
  let pgSends: Array<number | null> = [null, null];
  let pgFetches: Array<number | null> = [null, null];
  const client = NO_PG ? null : await pgClient();
  let pgNote = 'PostgreSQL not reachable: no baseline.';
  if (client) {
    let rowsTotal = 0;
    for (const r of state.messages.rows.values()) rowsTotal += r.count;
    const rows = Number(process.env['BENCH_PG_ROWS'] ?? rowsTotal);
    const t0 = performance.now();
    await loadPg(client, state, rows, [big, small, busy], log);
    pgNote = `PostgreSQL ${(await client.query('SHOW server_version')).rows[0].server_version}: ${state.messages.count.toLocaleString('en')} messages, ${rows.toLocaleString('en')} usermessage rows, loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s.`;
    const nextId = { id: state.messages.count + 10 };
    pgSends = [await pgSend(client, big, nextId), await pgSend(client, small, nextId)];
    pgFetches = [await pgFetch(client, busy, false), await pgFetch(client, busy, true)];
    await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await client.end();
  }
  const f = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
  const perRow = (us: number, n: number) => `${((us * 1000) / n).toFixed(0)} ns`;
  const wc = (t: Timing) => `${f(t.wall)} / ${f(t.cpu)}`;
  const rate = (us: number) => `${Math.round(1e6 / us).toLocaleString('en')}/s`;
  const lines = [
    `## Sending and fetching messages (${preset} preset)`,
    '',
    `${state.users.size.toLocaleString('en')} users, ${state.channels.size.toLocaleString('en')} channels, ${state.messages.count.toLocaleString('en')} messages. Median of batches after warm-up, one run. ${pgNote}`,
    '',
    "| POST /messages into a channel with | sendMessage (whole operation) | appendMessage (store only) | floor: row writes only | PostgreSQL, Zulip's inserts |",
    '|---|---:|---:|---:|---:|',
    ...sends.map(
      (s, i) =>
        `| ${s.name} | ${f(s.opUs)} (${rate(s.opUs)}, ${perRow(s.opUs, s.recipients)}/row) | ${f(s.storeUs)} (${perRow(s.storeUs, s.recipients)}/row) | ${f(s.floorUs)} (${perRow(s.floorUs, s.recipients)}/row) | ${pgSends[i] == null ? '—' : `${f(pgSends[i]!)} (${rate(pgSends[i]!)}, ${perRow(pgSends[i]!, s.recipients)}/row)`} |`,
    ),
    '',
    `GET /messages: the four fetch columns interleaved batch by batch (21 batches each, every batch sized to last at least 40 ms, after warm-up; a minor GC outside the timing empties the young generation before every batch and a timed one ends it, so each side pays for exactly its own garbage), medians of wall / CPU time per call from one run; load average ${fetchLoad} at ${fetchDate} UTC. The ratio is getMessages over the dicts floor.`,
    '',
    "| GET /messages, 1000 newest | getMessages (whole operation) | narrow engine (selectWindow) | floor: index walk only | floor: walk + the same dicts copied | getMessages / dicts floor, wall / CPU | a cold read adds (rendering) | PostgreSQL, Zulip's queries |",
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...fetches.map(
      (r, i) =>
        `| ${r.name} (${r.count} messages) | ${wc(r.op)} | ${wc(r.engine)} | ${wc(r.floor)} | ${wc(r.dictsFloor)} | ${(r.op.wall / r.dictsFloor.wall).toFixed(2)}× / ${(r.op.cpu / r.dictsFloor.cpu).toFixed(2)}× | ${f(r.renderUs)} | ${pgFetches[i] == null ? '—' : f(pgFetches[i]!)} |`,
    ),
  ];
  return lines.join('\n');
}
