/**
 * Child process for the two-process live test: opens realm "live" in schema argv[2] of the
 * PostgreSQL database at DATABASE_URL (the library directly, no HTTP) and edits channel 3's
 * description to argv[3] as iago, printing `ack <version>`.
 */
import { writeSync } from 'node:fs';
import { openRealm } from '../../src/host/realm-handle';
import { editChannel } from '../../src/ops/index';
import { postgresStore } from '../../src/stores/postgres/index';
import { cast } from '../support/realm';

const [schema, description] = process.argv.slice(2);
const url = process.env['DATABASE_URL'];
if (!schema || description === undefined || !url)
  throw new Error('usage: DATABASE_URL=… pg-writer-child.ts <schema> <description>');
const store = await postgresStore({ connectionString: url, realm: 'live', schema });
const handle = await openRealm({ store });
const r = await handle.run(editChannel, { userId: cast.iago }, { stream_id: 3, description });
writeSync(1, `ack ${r.version} ${r.status}\n`);
await handle.close();
