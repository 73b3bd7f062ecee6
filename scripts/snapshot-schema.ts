/**
 * Writes schema/realm-snapshot.schema.json, the JSON Schema of the snapshot format
 * (docs/realm-snapshot.md), from the zod schemas `createRealm` validates with and the types come
 * from. Run after changing src/core/snapshot/schema.ts or format.ts:
 * `npx tsx scripts/snapshot-schema.ts` (a test checks the committed file is current).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { snapshotJsonSchema } from '../src/core/snapshot/json-schema';

const target = fileURLToPath(new URL('../schema/realm-snapshot.schema.json', import.meta.url));
const options = (await prettier.resolveConfig(target)) ?? {};
writeFileSync(
  target,
  await prettier.format(JSON.stringify(snapshotJsonSchema()), { ...options, filepath: target }),
);
