/**
 * The message store's public face: every module outside this folder imports the store from here,
 * so the split below is free to change without touching them.
 *
 * - `store-types.ts`: the store and chunk shapes, `MESSAGE_CHUNK`, `EMPTY_STORE`;
 * - `store-build.ts` / `store-build-messages.ts`: building a store from columns or from records;
 * - `store-read.ts` / `store-cursor.ts`: finding and decoding messages;
 * - `store-delete.ts`: removing messages with their rows and index entries;
 * - `query.ts`: answers from the indexes, `usersWithRow` among them.
 */
export {
  EMPTY_STORE,
  MESSAGE_CHUNK,
  type EditHistoryEntry,
  type MessageChunk,
  type MessageEdits,
  type MessageStore,
} from './store-types';
export { buildMessageStoreFromColumns, type MessageColumnsInput } from './store-build';
export { buildMessageStore, type MessageInput } from './store-build-messages';
export { allMessages, decode, getMessage, locateMessage, type MessageRecord } from './store-read';
export { MessageCursor } from './store-cursor';
export { deleteMessages } from './store-delete';
export { usersWithRow } from './query';
