/**
 * POST /messages (the whole `sendMessage` operation) against a *persistent* floor, at about 10,
 * 100, 1,000 and 10,000 recipients (issue 29, goal 1).
 *
 * The floor does only the irreducible work of a send that keeps every older state valid: it
 * appends the message to a message column and one (id, flags) row per recipient, and yields a new
 * state while the old one still sees exactly its own rows. Its layout is the cheapest persistent
 * one we know: each user's rows live in a shared append-only buffer written in place while the
 * writer is at the buffer's frontier (a second writer onto the same parent copies), and each state
 * owns a chunked vector of per-user row counts that is copied on write, 32 users a chunk (as the
 * store's `RowTable`). So a send costs two typed-array writes and a frontier check per recipient
 * plus the copy of the count chunks it touches; no checks, no mentions, no events, no per-recipient
 * objects.
 *
 * Method: both sides run in one process on the same realm, interleaved batch by batch (op, floor,
 * op, floor, …), warmed until their medians settle; each figure is the median over batches of
 * wall time and of process CPU time (`process.cpuUsage`: user + system, every thread, so GC helper
 * threads count). Every ratio comes from the one run. GC is paid by the side whose garbage it is:
 * before every batch, outside the timing, a minor GC (`gc({ type: 'minor' })`, --expose-gc) empties
 * the young generation, so no batch inherits the other side's garbage; and each side's batch is
 * sized from its own trial batches to last at least BATCH_MIN_MS and to allocate at least
 * SCAVENGES_PER_BATCH young generations (so it pays its own scavenges several times per batch, in
 * proportion to what it allocates; the batch's tail, under one young generation, is collected by a
 * minor GC inside the timing, so nothing goes unpaid), capped at BATCH_MAX_MS. The two sides may therefore make different
 * numbers of calls per batch; figures are per call. Old-generation (major) GC is not reset: it
 * lands where it lands, and the medians over rounds absorb it; so the table also gives each side's
 * mean over the same batches (total time over total calls), which keeps every major GC it met.
 *
 * A third side, the floor with the send's outputs (`OutputFloor`), adds to the store floor what a
 * send must also produce whatever the engine: the message's remaining columns, its entries in the
 * id lists that narrows read (channel, topic, sender), its HTML, the event and the answer. At a few
 * recipients the store floor alone is a fraction of a microsecond, less than building the event
 * dict the operation must return; both ratios are reported. Memory: the heap a row costs, measured by
 * sending into the ~1,000-subscriber channel with nothing but the last state alive (run node with
 * --expose-gc).
 */
import { loadavg } from 'node:os';
import { getHeapSpaceStatistics } from 'node:v8';
import type { RealmState } from '../src/core/state';
import { sendMessage } from '../src/ops/index';
import { simulateRealm } from '../src/simulate/simulate';
import { emptyYoung } from './interleave';
import { median } from './stats';

interface Target {
  readonly streamId: number;
  readonly topic: string;
  readonly subscribers: readonly number[];
}

/** Active subscribers who are active users, per channel (once: the realm does not change here). */
function channelsBySize(state: RealmState): Target[] {
  const out: Target[] = [];
  for (const [streamId, per] of state.subscriptions) {
    const channel = state.channels.get(streamId);
    if (channel === undefined || channel.is_archived) continue;
    const subscribers: number[] = [];
    for (const s of per.values())
      if (s.active && state.users.get(s.user_id)?.is_active) subscribers.push(s.user_id);
    out.push({ streamId, topic: 'bench send', subscribers });
  }
  return out;
}

/**
 * The realm with every active user subscribed to the channel of `t` (a copy of one of its
 * subscription rows each), for the 10,000-recipient row when the preset has no channel that large.
 * Only the subscription map changes: a send reads nothing else about subscribers.
 */
function everyoneIn(state: RealmState, t: Target): [RealmState, Target] {
  const per = state.subscriptions.get(t.streamId)!;
  const template = per.values().next().value!;
  let rows = per;
  const subscribers: number[] = [];
  for (const u of state.users.values()) {
    if (!u.is_active) continue;
    subscribers.push(u.user_id);
    const own = rows.get(u.user_id);
    if (own === undefined || !own.active)
      rows = rows.set(u.user_id, { ...template, user_id: u.user_id, active: true });
  }
  const next: RealmState = { ...state, subscriptions: state.subscriptions.set(t.streamId, rows) };
  return [next, { ...t, subscribers }];
}

function nearest(targets: readonly Target[], n: number): Target {
  let best = targets[0]!;
  for (const t of targets)
    if (Math.abs(t.subscribers.length - n) < Math.abs(best.subscribers.length - n)) best = t;
  return best;
}

// ---- the persistent floor -------------------------------------------------------------------

const LEN_CHUNK = 32;
const ROW_CAP = 2048;

/** One user's shared row buffer: slots below `frontier` are written; each state sees a prefix. */
interface FloorBuffer {
  ids: Int32Array;
  flags: Uint16Array;
  frontier: number;
}

/** A state of the floor: the message column's visible length and every user's visible row count. */
interface FloorState {
  readonly messages: number;
  /** Plain arrays of small integers, as the store keeps them: a 32-slot typed array would have its own off-heap buffer to allocate per copy. */
  readonly lens: readonly (readonly number[])[];
}

class Floor {
  readonly buffers: FloorBuffer[] = [];
  messageIds = new Int32Array(1 << 16);
  senders = new Int32Array(1 << 16);
  contents: string[] = [];
  frontier = 0;

  constructor(users: number) {
    for (let u = 0; u < users; u++)
      this.buffers.push({ ids: new Int32Array(ROW_CAP), flags: new Uint16Array(ROW_CAP), frontier: 0 });
  }

  initial(users: number): FloorState {
    const lens: number[][] = [];
    for (let i = 0; i < users; i += LEN_CHUNK) lens.push(new Array<number>(LEN_CHUNK).fill(0));
    return { messages: 0, lens };
  }

  send(s: FloorState, id: number, sender: number, content: string, users: readonly number[]): FloorState {
    let m = s.messages;
    if (m !== this.frontier || m === this.messageIds.length) {
      // Not at the frontier (a fork) or full: a fresh column (amortized away in this bench).
      m = 0;
      this.messageIds = new Int32Array(this.messageIds.length);
      this.senders = new Int32Array(this.senders.length);
      this.contents = [];
    }
    this.messageIds[m] = id;
    this.senders[m] = sender;
    this.contents[m] = content;
    this.frontier = m + 1;
    const lens = s.lens.slice();
    let copied = -1;
    let chunk: number[] | undefined;
    for (let k = 0; k < users.length; k++) {
      const u = users[k]!;
      const ci = (u / LEN_CHUNK) | 0;
      if (ci !== copied) {
        chunk = lens[ci] = s.lens[ci]!.slice();
        copied = ci;
      }
      const at = chunk![u % LEN_CHUNK]!;
      const b = this.buffers[u]!;
      let pos = at;
      if (at !== b.frontier || at === ROW_CAP) {
        // A fork or a full buffer: the row goes to a fresh buffer (a full one would be sealed into
        // the user's chunk list, once per ROW_CAP rows).
        b.ids = new Int32Array(ROW_CAP);
        b.flags = new Uint16Array(ROW_CAP);
        pos = 0;
      }
      b.ids[pos] = id;
      b.flags[pos] = u === sender ? 1 : 0;
      b.frontier = pos + 1;
      chunk![u % LEN_CHUNK] = pos + 1;
    }
    return { messages: m + 1, lens };
  }
}

// ---- the floor with the send's outputs ----------------------------------------------------------

/** A state of the fuller floor: the store floor's, plus each index list's visible length. */
interface OutputFloorState {
  readonly store: FloorState;
  /** Per-channel, per-topic and per-sender list lengths: chunked, copied on write, as `lens`. */
  readonly channelLens: readonly (readonly number[])[];
  readonly topicLens: readonly (readonly number[])[];
  readonly senderLens: readonly (readonly number[])[];
}

/** What a send must hand back: the event addressed to its recipients, and the answer. */
interface FloorOutput {
  readonly state: OutputFloorState;
  readonly events: readonly { readonly event: object; readonly users: readonly number[] }[];
  readonly body: { readonly result: string; readonly msg: string; readonly id: number };
}

/** Lengths for `keys` keys, 32 a chunk, all zero. */
function zeroLens(keys: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < keys; i += LEN_CHUNK) out.push(new Array<number>(LEN_CHUNK).fill(0));
  return out;
}

/**
 * `id` appended to list `key` (shared append-only buffers written at their frontier, per-state
 * lengths copied on write by chunk): the new lengths.
 */
function appendToList(
  lens: readonly (readonly number[])[],
  buffers: FloorBuffer[],
  key: number,
  id: number,
): (readonly number[])[] {
  const out = lens.slice();
  const ci = (key / LEN_CHUNK) | 0;
  const chunk = (out[ci] = lens[ci]!.slice());
  const at = chunk[key % LEN_CHUNK]!;
  const b = buffers[key]!;
  let pos = at;
  if (at !== b.frontier || at === ROW_CAP) {
    b.ids = new Int32Array(ROW_CAP);
    pos = 0;
  }
  b.ids[pos] = id;
  b.frontier = pos + 1;
  chunk[key % LEN_CHUNK] = pos + 1;
  return out;
}

/** The cheapest HTML for plain text (what any renderer must at least do: escape, wrap). */
function plainHtml(text: string): string {
  return /[&<>"']/.test(text)
    ? `<p>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')}</p>`
    : `<p>${text}</p>`;
}

/**
 * The store floor plus the rest of a send's irreducible work: the message's other columns (its
 * recipient, topic and time), its entries in the id lists a narrow reads (its channel's, its
 * topic's and its sender's, kept as the rows are), its HTML, and its outputs: one message event
 * (the message dict Zulip sends, one literal) addressed to the recipients' list as it is, and the
 * answer. No parameter parsing, access rules, mentions or flags beyond the sender's.
 */
class OutputFloor {
  readonly store: Floor;
  readonly channelBuffers: FloorBuffer[] = [];
  readonly topicBuffers: FloorBuffer[] = [];
  readonly senderBuffers: FloorBuffer[] = [];
  readonly topicIds = new Map<string, number>();
  recipients = new Int32Array(1 << 16);
  topics = new Int32Array(1 << 16);
  timestamps = new Float64Array(1 << 16);

  constructor(
    users: number,
    channels: number,
    private readonly realm: { readonly stringId: string },
    private readonly sender: { readonly id: number; readonly fullName: string; readonly email: string },
  ) {
    this.store = new Floor(users);
    const buffer = (): FloorBuffer => ({
      ids: new Int32Array(ROW_CAP),
      flags: new Uint16Array(0),
      frontier: 0,
    });
    for (let c = 0; c < channels; c++) this.channelBuffers.push(buffer());
    for (let t = 0; t < 64; t++) this.topicBuffers.push(buffer());
    for (let u = 0; u < users; u++) this.senderBuffers.push(buffer());
  }

  initial(users: number, channels: number): OutputFloorState {
    return {
      store: this.store.initial(users),
      channelLens: zeroLens(channels),
      topicLens: zeroLens(64),
      senderLens: zeroLens(users),
    };
  }

  send(
    s: OutputFloorState,
    id: number,
    channel: { readonly id: number; readonly name: string; readonly recipientId: number },
    topic: string,
    content: string,
    timestamp: number,
    users: readonly number[],
  ): FloorOutput {
    const senderId = this.sender.id;
    const store = this.store.send(s.store, id, senderId, content, users);
    const m = store.messages - 1;
    let topicKey = this.topicIds.get(topic);
    if (topicKey === undefined) this.topicIds.set(topic, (topicKey = this.topicIds.size));
    this.recipients[m] = channel.recipientId;
    this.topics[m] = topicKey;
    this.timestamps[m] = timestamp;
    const next: OutputFloorState = {
      store,
      channelLens: appendToList(s.channelLens, this.channelBuffers, channel.id, id),
      topicLens: appendToList(s.topicLens, this.topicBuffers, topicKey, id),
      senderLens: appendToList(s.senderLens, this.senderBuffers, senderId, id),
    };
    const message = {
      id,
      sender_id: senderId,
      content: plainHtml(content),
      recipient_id: channel.recipientId,
      timestamp,
      client: 'API',
      subject: topic,
      topic_links: [],
      is_me_message: false,
      reactions: [],
      submessages: [],
      sender_full_name: this.sender.fullName,
      sender_email: this.sender.email,
      sender_realm_str: this.realm.stringId,
      display_recipient: channel.name,
      type: 'stream',
      stream_id: channel.id,
      avatar_url: null,
      content_type: 'text/html',
    };
    return {
      state: next,
      events: [{ event: { type: 'message', message, flags: [] }, users }],
      body: { result: 'success', msg: '', id },
    };
  }
}

// ---- timing -----------------------------------------------------------------------------------

interface Sample {
  readonly wallUs: number;
  readonly cpuUs: number;
}

function batch(fn: () => void, per: number): Sample {
  emptyYoung();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < per; i++) fn();
  // The batch's own tail of garbage (under one young generation) is collected inside the timing:
  // each side pays for exactly the garbage it made, and the next batch starts empty.
  emptyYoung();
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { wallUs: (wall * 1000) / per, cpuUs: (c.user + c.system) / per };
}

/** Each batch lasts at least this long … */
const BATCH_MIN_MS = 40;
/** … and allocates at least this many young generations' worth, so it pays its own scavenges. */
const SCAVENGES_PER_BATCH = 4;
/** A batch never lasts longer than this (the 10,000-recipient sends, whatever they allocate). */
const BATCH_MAX_MS = 250;

/** The young generation's current semi-space: what one scavenge collects at most. */
function semiSpaceBytes(): number {
  const young = getHeapSpaceStatistics().find((sp) => sp.space_name === 'new_space');
  // new_space is two semi-spaces; 16 MB is V8's default maximum semi-space on 64-bit.
  return young === undefined ? 16 << 20 : young.space_size / 2;
}

/**
 * Bytes one call allocates: heap (and array-buffer) growth over a few calls that start on an empty
 * young generation and are too few to fill it; the median of several tries, negative deltas (a
 * scavenge after all) skipped.
 */
function bytesPerCall(fn: () => void, usPerCall: number): number {
  const n = Math.max(1, Math.min(200, Math.floor(2000 / Math.max(usPerCall, 1))));
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const tries: number[] = [];
  for (let t = 0; t < 9; t++) {
    emptyYoung();
    const h0 = used();
    for (let i = 0; i < n; i++) fn();
    const d = used() - h0;
    if (d > 0) tries.push(d / n);
  }
  return tries.length > 0 ? median(tries) : 0;
}

/**
 * How many calls a batch of `fn` makes: enough for BATCH_MIN_MS and for SCAVENGES_PER_BATCH
 * young generations of its own allocation, at most BATCH_MAX_MS (from a few trial batches).
 */
function callsPerBatch(fn: () => void): { per: number; bytes: number } {
  let per = 2;
  let us = 0;
  // Grow a trial batch until it lasts ~5 ms, then take the median of a few such batches.
  for (;;) {
    us = batch(fn, per).wallUs;
    if (us * per >= 5000 || per >= 1 << 20) break;
    per *= 2;
  }
  const trial: number[] = [];
  for (let i = 0; i < 5; i++) trial.push(batch(fn, per).wallUs);
  us = median(trial);
  const bytes = bytesPerCall(fn, us);
  const byTime = (BATCH_MIN_MS * 1000) / us;
  const byAlloc = bytes > 0 ? (SCAVENGES_PER_BATCH * semiSpaceBytes()) / bytes : 0;
  const cap = (BATCH_MAX_MS * 1000) / us;
  return { per: Math.max(2, Math.ceil(Math.min(cap, Math.max(byTime, byAlloc)))), bytes };
}

interface Sized {
  readonly per: number;
  readonly bytes: number;
}

/**
 * Interleaves batches of every side (each sized by `callsPerBatch`, so they may make different
 * numbers of calls) until every side's wall median over the last 9 batches moves less than 5%
 * between checks (at most `maxWarm` rounds), then times `rounds` more interleaved rounds.
 */
function interleaved(fns: ReadonlyArray<() => void>, rounds: number, maxWarm: number) {
  // Warm each side a little before sizing it (the first calls are interpreted / baseline code).
  for (let i = 0; i < 3; i++) for (const fn of fns) batch(fn, 8);
  let sized: Sized[] = fns.map((fn) => callsPerBatch(fn));
  const warm: number[][] = fns.map(() => []);
  let last = fns.map(() => 0);
  for (let r = 0; r < maxWarm; r++) {
    fns.forEach((fn, k) => warm[k]!.push(batch(fn, sized[k]!.per).wallUs));
    if (r >= 9 && r % 3 === 0) {
      const now = warm.map((w) => median(w.slice(-9)));
      if (now.every((m, k) => Math.abs(m - last[k]!) < 0.05 * m)) break;
      last = now;
    }
  }
  // Sized again now that every side is warm: a size taken from cold trials (the first side of a
  // run meets code not yet optimized, and a heap its realm was just built on) can be several
  // times too small, and the timed minor GC ending each batch is then shared by too few calls
  // (seen: 1,087 sends per batch, 7 ms instead of the 40 ms the method asks for).
  sized = fns.map((fn) => callsPerBatch(fn));
  for (let r = 0; r < 3; r++) fns.forEach((fn, k) => batch(fn, sized[k]!.per));
  const samples: Sample[][] = fns.map(() => []);
  for (let r = 0; r < rounds; r++) fns.forEach((fn, k) => samples[k]!.push(batch(fn, sized[k]!.per)));
  const med = (xs: Sample[], key: keyof Sample) => median(xs.map((x) => x[key]));
  // Every batch of a side makes the same number of calls, so the mean over batches is the total
  // time over the total calls: unlike the median it keeps the batches an old-generation GC landed
  // in, which the side whose heap grows faster (the send's new state, not the floor's) meets more.
  const mean = (xs: Sample[], key: keyof Sample) => xs.reduce((a, x) => a + x[key], 0) / xs.length;
  return samples.map((xs, k) => ({
    timing: { wallUs: med(xs, 'wallUs'), cpuUs: med(xs, 'cpuUs') } as Sample,
    mean: { wallUs: mean(xs, 'wallUs'), cpuUs: mean(xs, 'cpuUs') } as Sample,
    sized: sized[k]!,
  }));
}

export interface SendFigures {
  readonly recipients: number;
  readonly op: Sample;
  readonly floor: Sample;
  /** The floor that also produces the send's outputs (`OutputFloor`). */
  readonly full: Sample;
  /** Means over the same batches (GC pauses of every generation included), each side. */
  readonly mean: { readonly op: Sample; readonly floor: Sample; readonly full: Sample };
  /** Calls per batch and bytes allocated per call, each side. */
  readonly sizing: { readonly op: Sized; readonly floor: Sized; readonly full: Sized };
}

function pickSender(state: RealmState, t: Target): number {
  return t.subscribers.find(
    (u) =>
      sendMessage(
        state,
        { userId: u },
        { type: 'stream', to: t.streamId, topic: t.topic, content: 'x' },
        { now: 1 },
      ).status === 200,
  )!;
}

/**
 * Consecutive sends go to this many topics in turn (as an organization's traffic does, where the
 * previous message is rarely in the same conversation), so neither side gains from the last send's
 * topic being the next one's.
 */
const TOPICS = 8;

function measure(state: RealmState, t: Target, quick: boolean): SendFigures {
  const sender = pickSender(state, t);
  const topics = Array.from({ length: TOPICS }, (_, i) => `${t.topic} ${i}`);
  let s = state;
  let k = 0;
  const op = () => {
    s = sendMessage(
      s,
      { userId: sender },
      { type: 'stream', to: t.streamId, topic: topics[k % TOPICS]!, content: `Message ${k++}` },
      { now: 1_795_300_000 },
    ).state;
  };
  const floor = new Floor(state.users.maxKey() + 1);
  let f = floor.initial(state.users.maxKey() + 1);
  let id = 5_000_000;
  const fl = () => {
    id++;
    f = floor.send(f, id, sender, `Message ${id}`, t.subscribers);
  };
  const channel = state.channels.get(t.streamId)!;
  const senderRecord = state.users.get(sender)!;
  const full = new OutputFloor(
    state.users.maxKey() + 1,
    state.channels.maxKey() + 1,
    { stringId: state.realm.string_id },
    { id: sender, fullName: senderRecord.full_name, email: senderRecord.email },
  );
  let g = full.initial(state.users.maxKey() + 1, state.channels.maxKey() + 1);
  const floorChannel = { id: t.streamId, name: channel.name, recipientId: 3 * t.streamId };
  let fullId = 9_000_000;
  const ff = () => {
    fullId++;
    g = full.send(
      g,
      fullId,
      floorChannel,
      topics[fullId % TOPICS]!,
      `Message ${fullId}`,
      1_795_300_000,
      t.subscribers,
    ).state;
  };
  const [o, fo, fu] = interleaved([op, fl, ff], quick ? 11 : 21, quick ? 24 : 45);
  return {
    recipients: t.subscribers.length,
    op: o!.timing,
    floor: fo!.timing,
    full: fu!.timing,
    mean: { op: o!.mean, floor: fo!.mean, full: fu!.mean },
    sizing: { op: o!.sized, floor: fo!.sized, full: fu!.sized },
  };
}

/**
 * Heap bytes per UserMessage row: the growth between `warm` and `warm + n` sends into `t`, only the
 * last state alive, divided by the rows of those `n` sends. The first `warm` absorb one-time costs
 * (each recipient's rows taken over by the append path, the topic's first message), so this is the
 * marginal cost of a row plus its share of the message. `n` should span whole row chunks: a user's
 * tail buffer is allocated in steps (and a whole chunk at a time once one is full), so a window of
 * a few hundred sends reads ±1 byte per row depending on which users' buffers grew inside it.
 */
function heapPerRow(state: RealmState, t: Target, warm: number, n: number): number | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) return null;
  const sender = pickSender(state, t);
  const heap = () => {
    gc();
    gc();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  let s = state;
  const send = () =>
    (s = sendMessage(
      s,
      { userId: sender },
      { type: 'stream', to: t.streamId, topic: t.topic, content: 'row' },
      { now: 1_795_300_000 },
    ).state);
  for (let i = 0; i < warm; i++) send();
  const before = heap();
  for (let i = 0; i < n; i++) send();
  const after = heap();
  // `s` is read after the measurement so that it is what the heap holds.
  return s.messages.count > 0 ? (after - before) / (n * t.subscribers.length) : null;
}

export function runSendBench(opts: { quick: boolean; log: (s: string) => void }): string {
  const presets: Array<'medium' | 'large'> = opts.quick ? ['medium'] : ['medium', 'large'];
  const lines = [
    '## Sending a message versus a persistent floor (issue 29, goal 1)',
    '',
    'The whole `sendMessage` (validation, mentions, flags, the store append, events) against a floor that appends the same message and the same (id, flags) rows while keeping every older state valid (bench/send.ts: shared append-only row buffers written at their frontier, per-state row counts copied on write in 32-user chunks, as the store). Interleaved batches in one process, warmed until the medians settle; medians of wall time and of process CPU time (all threads, GC included). Before every batch, untimed, a minor GC empties the young generation, and each side’s batch is sized (again once every side is warm) to last at least 40 ms and to allocate at least 4 young generations of its own (at most 250 ms), and a timed minor GC ends each batch (its own tail of garbage), so each side pays for all of its own scavenges and none of the other’s. Heap per row: the growth of the heap per UserMessage row (with its share of the message) between 500 and 4,596 sends into the ~1,000-subscriber channel (4,096 sends: two whole 2,048-row chunks per recipient, so where each user’s row buffer stands in its growth does not decide the figure, as it did over the 500 sends measured until 2026-11-29), only the last state alive. The floor + outputs (bench/send.ts, `OutputFloor`) is the same store floor plus the rest of what a send must do and hand back, each in its cheapest form: the message’s other columns, its entries in the channel, topic and sender id lists a narrow reads (kept as the rows are), its HTML (escape and wrap), one message event (Zulip’s message dict, one literal) addressed to the recipients’ list as it is, and the answer; it still parses nothing, checks no access, computes no mentions. Consecutive sends (both sides) go to 8 topics of the channel in turn. The medians drop the batches an old-generation GC lands in; the mean column keeps them (total time over total calls of the same batches), so where the two disagree a major GC is weighing on one side.',
    '',
    '| preset | recipients | sendMessage wall | floor wall | wall ratio | sendMessage CPU | floor CPU | CPU ratio | floor + outputs wall / CPU | ratio to it, wall / CPU | mean wall incl. every GC: sendMessage / floor + outputs (ratio) | load (1, 5, 15 min) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const heap: string[] = [];
  const f = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us.toFixed(1)} µs`);
  for (const preset of presets) {
    opts.log(`send: simulating the ${preset} preset`);
    const state = simulateRealm({ preset, seed: 1 });
    const targets = channelsBySize(state);
    const sizes = preset === 'large' ? [10, 100, 1000, 10_000] : [10, 100, 1000];
    for (const n of sizes) {
      let t = nearest(targets, n);
      let realm = state;
      let note = '';
      if (t.subscribers.length < 0.8 * n) {
        [realm, t] = everyoneIn(state, t);
        note = ' (every active user subscribed)';
      }
      const r = measure(realm, t, opts.quick);
      const load = loadavg()
        .map((x) => x.toFixed(2))
        .join(' ');
      opts.log(
        `send ${preset} ${r.recipients}: op ${f(r.op.wallUs)} / ${f(r.op.cpuUs)} cpu, floor ${f(r.floor.wallUs)} / ${f(r.floor.cpuUs)} cpu, floor + outputs ${f(r.full.wallUs)} / ${f(r.full.cpuUs)} cpu, means op ${f(r.mean.op.wallUs)} floor + outputs ${f(r.mean.full.wallUs)}, load ${load}; per batch op ${r.sizing.op.per} × ${(r.sizing.op.bytes / 1024).toFixed(1)} KB, floor ${r.sizing.floor.per} × ${(r.sizing.floor.bytes / 1024).toFixed(1)} KB, floor + outputs ${r.sizing.full.per} × ${(r.sizing.full.bytes / 1024).toFixed(1)} KB`,
      );
      lines.push(
        `| ${preset} | ${r.recipients.toLocaleString('en')}${note} | ${f(r.op.wallUs)} | ${f(r.floor.wallUs)} | ${(r.op.wallUs / r.floor.wallUs).toFixed(2)}× | ${f(r.op.cpuUs)} | ${f(r.floor.cpuUs)} | ${(r.op.cpuUs / r.floor.cpuUs).toFixed(2)}× | ${f(r.full.wallUs)} / ${f(r.full.cpuUs)} | ${(r.op.wallUs / r.full.wallUs).toFixed(2)}× / ${(r.op.cpuUs / r.full.cpuUs).toFixed(2)}× | ${f(r.mean.op.wallUs)} / ${f(r.mean.full.wallUs)} (${(r.mean.op.wallUs / r.mean.full.wallUs).toFixed(2)}×) | ${load} |`,
      );
    }
    const t = nearest(targets, 1000);
    const perRow = heapPerRow(state, t, 500, 2 * 2048);
    if (perRow !== null)
      heap.push(`${preset}: ${perRow.toFixed(1)} bytes per row (${t.subscribers.length} recipients)`);
  }
  lines.push('', `Measured ${new Date().toISOString().slice(0, 16)} UTC.`);
  if (heap.length > 0) lines.push('', `Heap per UserMessage row: ${heap.join('; ')}.`);
  return lines.join('\n');
}
