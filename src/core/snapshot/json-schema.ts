import * as z from 'zod/mini';
import { snapshotSchema } from './schema';

/**
 * The snapshot format as JSON Schema (draft 2020-12), what `createRealm` accepts. Messages are
 * checked by their own loader (ids, recipients, flags against the rest of the realm), so the schema
 * lists them as an array only.
 */
export function snapshotJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(snapshotSchema, { io: 'input', unrepresentable: 'any' }),
    $id: 'https://chat-realm.invalid/realm-snapshot.schema.json',
    title: 'chat-realm realm snapshot (format chat-realm.snapshot/1)',
  };
}
