/**
 * Child process for the many-processes test: opens realm argv[5] (default "multi") in schema argv[2] of the
 * PostgreSQL database at DATABASE_URL and appends `count` marks to hamlet's name (a read-modify-
 * write, so the processes conflict), printing `ack <version> <mark>` for each acknowledged change
 * and `conflicts <n>` at the end. argv[6]: `contended` (default: the lock after a lost race),
 * `always` (every batch takes the write lock) or `optimistic` (no lock); argv[7]: maxRetries.
 */
import { writeSync } from 'node:fs';
import { openRealm } from '../../src/host/realm-handle';
import { VersionConflictError } from '../../src/host/errors';
import { postgresStore } from '../../src/stores/postgres/index';
import { ALL_OPS, appendMark } from '../support/host-ops';
import { cast } from '../support/realm';

const [schema, id, count, realm = 'multi', mode = 'contended', retries = '1000'] = process.argv.slice(2);
const url = process.env['DATABASE_URL'];
if (!schema || !id || !count || !url)
  throw new Error(
    'usage: DATABASE_URL=… multi-child.ts <schema> <id> <count> [realm] [contended|always|optimistic] [maxRetries]',
  );

const store = await postgresStore({
  connectionString: url,
  realm,
  schema,
  lockWrites: mode !== 'optimistic',
});
let conflicts = 0;
const counting = {
  ...store,
  appendBatch: (changes: Parameters<typeof store.appendBatch>[0], expected: number) =>
    store.appendBatch(changes, expected).catch((error: unknown) => {
      if (error instanceof VersionConflictError) conflicts++;
      throw error;
    }),
};
const handle = await openRealm({
  store: counting,
  operations: ALL_OPS,
  maxRetries: Number(retries),
  writeLock: mode === 'always' ? 'always' : 'contended',
});
// Ready: wait for the parent's `go`, so that every writer starts at once (many-writers.test.ts).
writeSync(1, 'ready\n');
await new Promise<void>((resolve) => {
  let input = '';
  process.stdin.on('data', (d: Buffer) => {
    input += d.toString();
    if (input.includes('go')) resolve();
  });
  process.stdin.on('end', () => resolve());
});
for (let i = 0; i < Number(count); i++) {
  const mark = `[${id}${i}]`;
  const r = await handle.run(appendMark, { userId: cast.hamlet }, { mark });
  writeSync(1, `ack ${r.version} ${mark}\n`);
}
writeSync(1, `conflicts ${conflicts}\n`);
await handle.close();
