import * as z from 'zod/mini';
import {
  channelMessageSchema,
  directMessageSchema,
  editHistoryEntrySchema,
  reactionSchema,
  snapshotDocumentSchema,
} from './format';
import { groupSettingInput, id, ts, userSettingsSchema } from './schema';

/** Schemas shown once, under `$defs`, with a name (the rest are written in place). */
function definitions(): z.core.$ZodRegistry<{ id: string; description?: string }> {
  const registry = z.registry<{ id: string; description?: string }>();
  registry.add(id, { id: 'Id', description: 'A positive id that fits 31 bits.' });
  registry.add(ts, { id: 'Timestamp', description: 'UNIX seconds.' });
  registry.add(groupSettingInput, {
    id: 'GroupSetting',
    description: "A user group's id, a system group's name, or an anonymous group.",
  });
  registry.add(userSettingsSchema, { id: 'UserSettings' });
  registry.add(reactionSchema, { id: 'Reaction' });
  registry.add(editHistoryEntrySchema, {
    id: 'EditHistoryEntry',
    description: 'One edit of a message, newest first.',
  });
  registry.add(channelMessageSchema, { id: 'ChannelMessage' });
  registry.add(directMessageSchema, { id: 'DirectMessage' });
  return registry;
}

/**
 * The snapshot format as JSON Schema (draft 2020-12): what `createRealm` accepts, every section
 * and record, messages included, generated from the zod schemas the types come from. What JSON
 * Schema cannot say is checked by `createRealm` only: unique ids and names, references between
 * records, and that a message's `flags` name users of the realm.
 */
export function snapshotJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(snapshotDocumentSchema, {
      io: 'input',
      unrepresentable: 'throw',
      metadata: definitions(),
    }),
    $id: 'https://chat-realm.invalid/realm-snapshot.schema.json',
    title: 'chat-realm realm snapshot (format chat-realm.snapshot/1)',
  };
}
