/**
 * Child process for the crash-safety test: opens the SQLite store at argv[2] (starting it from the
 * dev realm if empty), prints `loaded <version>`, then applies operations forever, printing
 * `ack <version>` after each acknowledged change — until the parent kills it with SIGKILL.
 * Every change creates a snippet "crash-<version>" with random bytes in its title, and a
 * checkpoint is written every 25 changes, so kills also land in the middle of checkpoints.
 */
import { writeSync } from 'node:fs';
import { openRealm } from '../../src/host/realm-handle';
import { sqliteStore } from '../../src/stores/sqlite/index';
import { devSnapshot, cast } from '../support/realm';
import { ALL_OPS, randomSnippet } from '../support/host-ops';

const filename = process.argv[2];
if (!filename) throw new Error('usage: crash-child.ts <dbfile>');

const handle = await openRealm({
  store: sqliteStore({ filename, realm: 'crash' }),
  snapshot: devSnapshot(),
  operations: ALL_OPS,
  checkpoints: { everyChanges: 25 },
});
// Synchronous writes: a line printed is a line the parent will read, even if we die right after.
writeSync(1, `loaded ${handle.version}\n`);
for (;;) {
  const r = await handle.run(
    randomSnippet,
    { userId: cast.hamlet },
    { content: `crash-${handle.version + 1}` },
  );
  writeSync(1, `ack ${r.version}\n`);
}
