/**
 * The PostgreSQL store's writer thread: a worker with a connection of its own that inserts a
 * checkpoint's parts. On the main thread, each 256 KiB part cost the `pg` driver's serializing and
 * a socket write that copies the part into the kernel (on loopback, the kernel's delivery to the
 * server too): about 1.5 ms of blocked event loop per part, 450 ms per 84 MB checkpoint, which the
 * realm's operations waited behind (bench/checkpoint-stall.ts). Here that work happens beside them.
 *
 * - Started with the first streamed checkpoint, only for a store that opened its own pool from a
 *   connection string (an injected client cannot be cloned onto another thread).
 * - Parts are paced here (`bytesPerSecond`), each its own statement and commit, exactly as on the
 *   main thread; the checkpoint's row, which makes the parts count, is still committed by the
 *   store's pool after the last part.
 * - A failed insert fails the checkpoint; the thread is then closed and the next checkpoint starts
 *   a new one.
 */
import { createRequire } from 'node:module';
import { PACE_SCRIPT, PartsThread } from '../parts-thread';

interface WriterConfig {
  readonly driver: string;
  readonly connectionString: string;
  readonly realm: string;
  readonly insertPart: string;
  /** Parts are written at most this many bytes per second (`Infinity`: no pacing). */
  readonly bytesPerSecond: number;
}

const SCRIPT = String.raw`
'use strict';
const { parentPort, workerData: c } = require('node:worker_threads');
const pg = require(c.driver);
const client = new (pg.Client || pg.default.Client)({ connectionString: c.connectionString });
let broken;
// A connection that fails between requests fails the next one (the error event must be handled).
client.on('error', (error) => { broken = error; });
const ready = client.connect();
${PACE_SCRIPT}
// After each part the thread waits (without blocking its loop) until its bytes are due.
const pace = (key, bytes) => {
  const wait = paceWait(key, bytes);
  return wait > 0 ? new Promise((resolve) => setTimeout(resolve, wait)) : undefined;
};
const run = async (m) => {
  await ready;
  if (broken) throw broken;
  if (m.op === 'part') {
    const data = Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength);
    await client.query(c.insertPart, [c.realm, m.version, m.key, m.part, data]);
    await pace(m.key, data.length);
    return { data: m.data, transfer: [m.data.buffer] };
  }
  if (m.op === 'close') { await client.end(); return {}; }
  throw new Error('unknown request ' + m.op);
};
// One request at a time, in order (the connection runs one statement at a time anyway).
let queue = Promise.resolve();
parentPort.on('message', (m) => {
  queue = queue.then(() => run(m)).then(
    (r) => parentPort.postMessage({ id: m.id, data: r.data }, r.transfer || []),
    (error) => parentPort.postMessage({
      id: m.id,
      error: { message: String((error && error.message) || error), code: error && error.code },
    }),
  );
});
`;

export interface WriterOptions {
  readonly connectionString: string;
  readonly realm: string;
  /** The insert of one part: parameters realm, version, parts_key, part, data. */
  readonly insertPart: string;
  readonly bytesPerSecond: number;
}

/**
 * Starts the thread (`PartsThread`: `writeParts`, `close`). A failed write closes it (its connection
 * may be broken), and the error goes to the caller.
 */
export function startWriterThread(options: WriterOptions): PartsThread {
  const config: WriterConfig = {
    driver: createRequire(import.meta.url).resolve('pg'),
    connectionString: options.connectionString,
    realm: options.realm,
    insertPart: options.insertPart,
    bytesPerSecond: options.bytesPerSecond,
  };
  return new PartsThread({
    script: SCRIPT,
    config,
    name: 'the PostgreSQL writer thread',
    closeOnFailedWrite: true,
  });
}
