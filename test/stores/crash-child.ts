/**
 * Child process for the crash-safety test: opens the SQLite store at argv[2] (starting it from the
 * dev realm if empty), prints `loaded <version>`, then eight writers apply operations at once,
 * forever (so changes are committed in batches), printing `ack <version> <content>` after each
 * acknowledged change — until the parent kills it with SIGKILL. Every change creates a snippet
 * "crash-<pid>-<writer>-<n>" with random bytes in its title, and a checkpoint is written every 25
 * changes, so kills also land in the middle of batches and checkpoints. With `CRASH_MESSAGES=n`
 * the realm also holds n generated messages, so each checkpoint is written in many parts (on the
 * SQLite store's writer thread), and `checkpointing <version>` is printed when one starts.
 */
import { writeSync } from 'node:fs';
import { openRealm } from '../../src/host/realm-handle';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { devSnapshot, cast } from '../support/realm';
import { largeSnapshot } from '../../bench/large-realm';
import { ALL_OPS, randomSnippet } from '../support/host-ops';

const filename = process.argv[2];
if (!filename) throw new Error('usage: crash-child.ts <dbfile>');

const messages = Number(process.env['CRASH_MESSAGES'] ?? 0);
const inner = sqliteStore({ filename, realm: 'crash' });
const handle = await openRealm({
  store: {
    ...inner,
    // Tell the parent how big the batches are (after the commit, so only durable ones count).
    appendBatch: async (changes, expected) => {
      await inner.appendBatch(changes, expected);
      writeSync(1, `batch ${changes.length}\n`);
    },
    writeCheckpoint: async (checkpoint) => {
      writeSync(1, `checkpointing ${checkpoint.version}\n`);
      await inner.writeCheckpoint(checkpoint);
    },
  },
  snapshot: messages > 0 ? largeSnapshot(messages) : devSnapshot(),
  operations: ALL_OPS,
  checkpoints: { everyChanges: 25 },
});
// Synchronous writes: a line printed is a line the parent will read, even if we die right after.
writeSync(1, `loaded ${handle.version}\n`);
const WRITERS = 8;
await Promise.all(
  Array.from({ length: WRITERS }, async (_, w) => {
    for (let n = 0; ; n++) {
      const content = `crash-${process.pid}-${w}-${n}`;
      const r = await handle.run(randomSnippet, { userId: cast.hamlet }, { content });
      writeSync(1, `ack ${r.version} ${content}\n`);
    }
  }),
);
