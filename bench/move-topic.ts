/**
 * Moving a whole 1,000-message topic (PATCH /messages/{id} with `propagate_mode: change_all`) on
 * the large simulated organization (10,000 users, 1,000 channels, 1,000,000 messages): a rename
 * inside the channel and a move to another channel, each against:
 *
 * - a floor doing only the irreducible work: the copy-on-write of the k touched message records
 *   (a fresh record per message with its new topic and channel) and the index updates (the k ids
 *   taken out of the old topic list and put into the new one, binary-search positions in the two
 *   channel lists for a move between channels), in plain mutable arrays;
 * - the store alone (`moveMessages`): our persistent columns and id lists, without the checks, the
 *   edit history, the rows and the events;
 * - PostgreSQL with Zulip's layout and Zulip's statements for the move: the topic's messages
 *   (`messages_for_topic`), the edited message's UserMessage rows (the event's flags), one UPDATE of
 *   subject / recipient / edit history / last edit time for the k messages, and for a move between
 *   channels the DELETE of the rows of the users who lose them; one transaction, committed.
 *
 * The topic's messages are spread through the channel's history (every n-th message of the busiest
 * channel), as a long-lived topic is. The operation, the store and the floor are timed interleaved
 * (each batch runs all three), wall and CPU time; every figure is a median over batches after
 * warm-up, from one run; `--quick` uses the medium preset. A move leaves the moved chunks' column
 * copies to their first reader (`moved-columns.ts`): the last column times that deferred work.
 */
import { loadavg } from 'node:os';
import pg from 'pg';
import { idListToArray, type IdList } from '../src/core/messages/idlist';
import { hasPendingMoves } from '../src/core/messages/moved-columns';
import { moveMessages } from '../src/core/messages/store-edit';
import { isPublic } from '../src/core/permissions/channels';
import type { RealmState } from '../src/core/state';
import { updateMessage } from '../src/ops/index';
import { simulateRealm } from '../src/simulate/simulate';
import { median } from './stats';
import { createZulipMessageTables } from './zulip-tables';

const PG_URL = process.env['BENCH_PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SCHEMA = 'chat_realm_bench_move';
const K = 1000;
const TOPIC = 'bench move topic';

interface Timing {
  /** Median wall time per call, µs. */
  readonly wall: number;
  /** Median CPU time (user + system, this process) per call, µs. */
  readonly cpu: number;
}

/**
 * Times the functions interleaved: each batch runs every function `per` times in turn, so that the
 * machine's load (shared, 2 cores) weighs on all of them alike; medians over the batches.
 */
function interleaved(fns: ReadonlyArray<{ fn: () => void; per: number }>, batches = 15, warm = 3): Timing[] {
  (globalThis as { gc?: () => void }).gc?.();
  for (let w = 0; w < warm; w++) for (const { fn, per } of fns) for (let i = 0; i < per; i++) fn();
  const walls = fns.map(() => [] as number[]);
  const cpus = fns.map(() => [] as number[]);
  for (let b = 0; b < batches; b++)
    fns.forEach(({ fn, per }, k) => {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      for (let i = 0; i < per; i++) fn();
      const wall = ((performance.now() - t0) / per) * 1000;
      const c = process.cpuUsage(c0);
      walls[k]!.push(wall);
      cpus[k]!.push((c.user + c.system) / per);
    });
  return fns.map((_, k) => ({ wall: median(walls[k]!), cpu: median(cpus[k]!) }));
}

interface Setup {
  readonly state: RealmState;
  readonly streamId: number;
  readonly destId: number;
  readonly ids: number[];
  readonly actor: number;
  readonly subscribers: number[];
  /** Users with rows who lose them on the move to `destId` (ever subscribed here, not there). */
  readonly losing: number[];
}

/** The busiest public channel gets a 1,000-message topic spread through its history. */
function setUp(preset: 'large' | 'medium'): Setup {
  const base = simulateRealm({ preset, seed: 1 });
  let streamId = 0;
  let destId = 0;
  let most = -1;
  for (const [id, list] of base.messages.byChannel) {
    const c = base.channels.get(id);
    if (c === undefined || c.is_archived || !isPublic(c)) continue;
    if (list.count > most) [streamId, destId, most] = [id, streamId, list.count];
  }
  const all = idListToArray(base.messages.byChannel.get(streamId)!);
  const step = Math.floor(all.length / K);
  const ids = Array.from({ length: K }, (_, i) => all[i * step]!);
  const state: RealmState = { ...base, messages: moveMessages(base.messages, streamId, ids, TOPIC) };
  // An organization owner: no time limit, content access to every public channel.
  const actor = [...state.users.values()].find((u) => u.role === 100 && u.is_active)!.user_id;
  const subscribers = [...(state.subscriptions.get(streamId)?.values() ?? [])]
    .filter((s) => s.active)
    .map((s) => s.user_id);
  const destSubscribers = new Set(
    [...(state.subscriptions.get(destId)?.values() ?? [])].filter((x) => x.active).map((x) => x.user_id),
  );
  const losing = [...(state.subscriptions.get(streamId)?.values() ?? [])]
    .map((x) => x.user_id)
    .filter((u) => !destSubscribers.has(u) && state.messages.rows.has(u));
  return { state, streamId, destId, ids, actor, subscribers, losing };
}

interface Row {
  readonly name: string;
  readonly opUs: number;
  readonly storeUs: number;
  readonly floorUs: number;
  readonly fold: Timing;
  readonly opCpu: number;
  readonly storeCpu: number;
  readonly floorCpu: number;
  pgUs: number | null;
}

function measure(s: Setup, toChannel: boolean): Row {
  const params = {
    message_id: s.ids[0]!,
    topic: 'bench moved',
    propagate_mode: 'change_all' as const,
    send_notification_to_old_thread: false,
    send_notification_to_new_thread: false,
    ...(toChannel ? { stream_id: s.destId } : {}),
  };
  const ctx = { now: 1_900_000_000 };
  const check = updateMessage(s.state, { userId: s.actor }, params, ctx);
  if (check.status !== 200) throw new Error(JSON.stringify(check.body));
  const event = check.events.find((e) => e.event.type === 'update_message')?.event;
  const moved = event !== undefined && 'message_ids' in event ? (event.message_ids as number[]).length : 0;
  if (moved !== K) throw new Error(`moved ${moved} messages, not ${K}`);
  const dest = toChannel ? s.destId : s.streamId;
  // The floor, on plain mutable arrays.
  const records = s.ids.map((id) => ({ id, sender: 1, topic: TOPIC, stream: s.streamId, ts: 0, bits: 0 }));
  const channelOf = (id: number) =>
    idListToArray(s.state.messages.byChannel.get(id) ?? ({ chunks: [], count: 0 } as IdList));
  const fromList = channelOf(s.streamId);
  const destList = channelOf(dest);
  // A move between channels also takes the k rows out of each user losing them (Zulip's DELETE):
  // in the floor, a binary search for each in the user's row ids.
  const losingRows = toChannel ? s.losing.map((u) => rowIds(s.state, u)) : [];
  const floor = () => {
    const copies = new Array<object>(K);
    for (let i = 0; i < K; i++) copies[i] = { ...records[i]!, topic: 'bench moved', stream: dest };
    const oldTopic = s.ids.slice();
    oldTopic.length = 0;
    const newTopic = s.ids.slice();
    let pos = 0;
    if (toChannel) for (const id of s.ids) pos += lowerBound(fromList, id) + lowerBound(destList, id);
    for (const rows of losingRows) for (const id of s.ids) pos += lowerBound(rows, id);
    if (pos < 0 || copies.length + newTopic.length < 0) throw new Error('unreachable');
  };
  const [op, store, floorT] = interleaved([
    { fn: () => updateMessage(s.state, { userId: s.actor }, params, ctx), per: 3 },
    { fn: () => moveMessages(s.state.messages, s.streamId, s.ids, 'bench moved', dest), per: 3 },
    { fn: floor, per: 30 },
  ]);
  const opUs = op!.wall;
  const storeUs = store!.wall;
  const floorUs = floorT!.wall;
  const fold = foldAfterMove(s, params, ctx);
  return {
    name: toChannel ? 'to another channel' : 'rename within the channel',
    opUs,
    storeUs,
    floorUs,
    fold,
    opCpu: op!.cpu,
    storeCpu: store!.cpu,
    floorCpu: floorT!.cpu,
    pgUs: null,
  };
}

/**
 * The copy a move defers (moved-columns.ts): the first read of the moved chunks' columns after a
 * move, as the next fetch or narrow scan over them pays it once. Each batch makes its moves
 * untimed, then times reading one value of each moved chunk's topic and recipient columns.
 */
function foldAfterMove(s: Setup, params: Parameters<typeof updateMessage>[2], ctx: { now: number }): Timing {
  const run = () => {
    const after = updateMessage(s.state, { userId: s.actor }, params, ctx).state.messages;
    return after.chunks.filter((c) => hasPendingMoves(c));
  };
  for (let i = 0; i < 3; i++) for (const c of run()) void (c.topic[0]! + c.recipient[0]!);
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let b = 0; b < 11; b++) {
    const batch = [run(), run(), run()];
    // The moves' garbage is collected first: only the folding is timed.
    (globalThis as { gc?: () => void }).gc?.();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let sum = 0;
    for (const chunks of batch) for (const c of chunks) sum += c.topic[0]! + c.recipient[0]!;
    walls.push(((performance.now() - t0) / batch.length) * 1000);
    const c = process.cpuUsage(c0);
    cpus.push((c.user + c.system) / batch.length);
    if (sum === 0.5) throw new Error('unreachable');
  }
  return { wall: median(walls), cpu: median(cpus) };
}

function rowIds(state: RealmState, userId: number): number[] {
  const out: number[] = [];
  for (const c of state.messages.rows.get(userId)?.chunks ?? []) for (const id of c.ids) out.push(id);
  return out;
}

function lowerBound(a: number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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

/**
 * zerver_message at the realm's size (generated rows; the channel's own messages in place, the
 * topic's 1,000 among them) and zerver_usermessage with a row per subscriber of the channel for
 * each of its messages; Zulip's indexes.
 */
async function loadPg(c: pg.Client, s: Setup, log: (line: string) => void): Promise<number> {
  const messages = s.state.messages.count;
  await createZulipMessageTables(c, SCHEMA);
  const channels = s.state.channels.size;
  await c.query(
    `INSERT INTO zerver_message (id, subject, content, rendered_content, date_sent, has_attachment, has_image, has_link, sender_id, realm_id, recipient_id, is_channel_message)
     SELECT g, 'topic ' || (g % 50), 'message ' || g, '<p>message ' || g || '</p>', now(), false, false, false, g % 10000 + 1, 1, 100000 + g % $1 + 1, true
     FROM generate_series(1, $2) g`,
    [channels, messages],
  );
  pgMoved.flip = false;
  const channelIds = idListToArray(s.state.messages.byChannel.get(s.streamId)!);
  await c.query(`UPDATE zerver_message SET recipient_id = $1, subject = 'other' WHERE id = ANY($2::int[])`, [
    s.streamId,
    channelIds,
  ]);
  await c.query(`UPDATE zerver_message SET subject = $1 WHERE id = ANY($2::int[])`, [TOPIC, s.ids]);
  // Rows for the topic's messages and as many of the channel's others as keep the load under
  // BENCH_PG_ROWS (default 4 M): the rows the move touches are all there.
  const cap = Number(process.env['BENCH_PG_ROWS'] ?? 4_000_000);
  const topicSet = new Set(s.ids);
  const others = channelIds.filter((id) => !topicSet.has(id));
  const room = Math.max(0, Math.floor(cap / Math.max(1, s.subscribers.length)) - s.ids.length);
  const withRows = [...s.ids, ...others.slice(-room)];
  await c.query(
    `INSERT INTO zerver_usermessage (flags, message_id, user_profile_id)
     SELECT 1, m, u FROM unnest($1::int[]) m, unnest($2::int[]) u`,
    [withRows, s.subscribers],
  );
  const rows = withRows.length * s.subscribers.length;
  log(`  pg: ${messages} messages, ${rows} usermessage rows; building Zulip's indexes`);
  for (const sql of [
    'ALTER TABLE zerver_usermessage ADD CONSTRAINT zerver_usermessage_user_profile_id_message_id_uniq UNIQUE (user_profile_id, message_id)',
    'CREATE INDEX zerver_usermessage_message_id ON zerver_usermessage (message_id)',
    'CREATE INDEX zerver_usermessage_unread_message_id ON zerver_usermessage (user_profile_id, message_id) WHERE (flags & 1) = 0',
    'CREATE INDEX zerver_message_realm_recipient_id ON zerver_message (realm_id, recipient_id, id)',
    'CREATE INDEX zerver_message_realm_recipient_upper_subject ON zerver_message (realm_id, recipient_id, upper(subject), id DESC) WHERE is_channel_message',
    'CREATE INDEX zerver_message_realm_sender_recipient ON zerver_message (realm_id, sender_id, recipient_id)',
    'CREATE INDEX zerver_message_realm_id ON zerver_message (realm_id, id DESC)',
    'ANALYZE',
  ])
    await c.query(sql);
  return rows;
}

/** Where the PostgreSQL copy of the topic is now (each timed move flips it). */
const pgMoved = { flip: false };

/**
 * Zulip's statements for one move, timed from BEGIN to COMMIT; the topic goes back and forth so
 * every run moves K messages, and the rows a move between channels deletes are put back after the
 * timed part.
 */
async function pgMove(c: pg.Client, s: Setup, toChannel: boolean): Promise<number> {
  const losing = s.subscribers.slice(0, Math.max(1, Math.floor(s.subscribers.length / 10)));
  const once = async (): Promise<number> => {
    const [from, to] = pgMoved.flip ? ['bench moved', TOPIC] : [TOPIC, 'bench moved'];
    pgMoved.flip = !pgMoved.flip;
    const t0 = performance.now();
    await c.query('BEGIN');
    const found = await c.query(
      `SELECT id FROM zerver_message WHERE realm_id = 1 AND recipient_id = $1 AND upper(subject) = upper($2) AND is_channel_message FOR UPDATE`,
      [s.streamId, from],
    );
    const ids = found.rows.map((r: { id: number }) => r.id);
    await c.query('SELECT user_profile_id, flags FROM zerver_usermessage WHERE message_id = $1', [ids[0]]);
    // A move between channels writes recipient_id too: the same channel here, so that the next
    // run finds the messages again (the row and its index entries are rewritten either way).
    await c.query(
      `UPDATE zerver_message SET subject = $1::text, recipient_id = $2, last_edit_time = now(),
         edit_history = '[{"user_id":1,"timestamp":1,"prev_topic":"' || $3::text || '","topic":"' || $1::text || '"}]'
       WHERE id = ANY($4::int[])`,
      [to, s.streamId, from, ids],
    );
    if (toChannel)
      await c.query(
        'DELETE FROM zerver_usermessage WHERE user_profile_id = ANY($1::int[]) AND message_id = ANY($2::int[])',
        [losing, ids],
      );
    await c.query('COMMIT');
    const us = (performance.now() - t0) * 1000;
    if (ids.length !== K) throw new Error(`pg moved ${ids.length}`);
    if (toChannel)
      await c.query(
        `INSERT INTO zerver_usermessage (flags, message_id, user_profile_id)
         SELECT 1, m, u FROM unnest($1::int[]) m, unnest($2::int[]) u ON CONFLICT DO NOTHING`,
        [ids, losing],
      );
    return us;
  };
  for (let i = 0; i < 4; i++) await once();
  const out: number[] = [];
  for (let i = 0; i < 21; i++) out.push(await once());
  return median(out);
}

export async function runMoveTopicBench(opts: { quick: boolean; log: (s: string) => void }): Promise<string> {
  const { log } = opts;
  const preset = opts.quick ? 'medium' : 'large';
  log(`move-topic: simulating the ${preset} preset`);
  const s = setUp(preset);
  const channelCount = s.state.messages.byChannel.get(s.streamId)!.count;
  log(`move-topic: channel ${s.streamId} (${channelCount} messages, ${s.subscribers.length} subscribers)`);
  const rows = [measure(s, false), measure(s, true)];
  const loadBefore = loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
  let pgNote = 'PostgreSQL not reachable: no baseline.';
  const client = await pgClient();
  if (client) {
    const t0 = performance.now();
    const pgRows = await loadPg(client, s, log);
    pgNote = `PostgreSQL ${(await client.query('SHOW server_version')).rows[0].server_version}: ${s.state.messages.count.toLocaleString('en')} messages, ${pgRows.toLocaleString('en')} usermessage rows (the channel's subscribers'), loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s; a move between channels also deletes the rows of a tenth of the subscribers (put back after each run, untimed).`;
    rows[0]!.pgUs = await pgMove(client, s, false);
    rows[1]!.pgUs = await pgMove(client, s, true);
    await client.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await client.end();
  }
  const f = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
  const x = (a: number, b: number) => `${(a / b).toFixed(1)}×`;
  return [
    `## Moving a ${K.toLocaleString('en')}-message topic (${preset} preset)`,
    '',
    `${s.state.users.size.toLocaleString('en')} users, ${s.state.channels.size.toLocaleString('en')} channels, ${s.state.messages.count.toLocaleString('en')} messages; the topic's messages are spread through a channel of ${channelCount.toLocaleString('en')} messages and ${s.subscribers.length} subscribers. Interleaved batches after warm-up, medians, one run (${new Date().toISOString().slice(0, 16)} UTC); load average ${loadBefore} (2 cores, shared: the CPU-time ratios are the ones to read). ${pgNote}`,
    '',
    "| PATCH /messages/{id}, change_all | updateMessage (whole operation), wall / CPU | moveMessages (store only), wall / CPU | floor, wall / CPU | PostgreSQL, Zulip's statements (wall) | operation ÷ floor, CPU | operation ÷ PostgreSQL, wall | first read of the moved chunks (deferred copy, once), wall / CPU |",
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${f(r.opUs)} / ${f(r.opCpu)} | ${f(r.storeUs)} / ${f(r.storeCpu)} | ${f(r.floorUs)} / ${f(r.floorCpu)} | ${r.pgUs === null ? '—' : f(r.pgUs)} | ${x(r.opCpu, r.floorCpu)} | ${r.pgUs === null ? '—' : x(r.opUs, r.pgUs)} | ${f(r.fold.wall)} / ${f(r.fold.cpu)} |`,
    ),
  ].join('\n');
}
