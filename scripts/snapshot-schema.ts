/**
 * Writes schema/realm-snapshot.schema.json, the JSON Schema of the snapshot format
 * (docs/realm-snapshot.md), from the zod schema `createRealm` validates with. Run after changing
 * src/core/snapshot/schema.ts: `npx tsx scripts/snapshot-schema.ts` (a test checks it is current).
 */
import { writeFileSync } from 'node:fs';
import { snapshotJsonSchema } from '../src/core/snapshot/json-schema';

const target = new URL('../schema/realm-snapshot.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(snapshotJsonSchema(), null, 2)}\n`);
