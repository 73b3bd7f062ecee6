/**
 * The hosting shell (entry point `chat-realm/host`): the realm handle, the store interface the
 * adapters implement, the record formats and the persistence errors. Runtime-agnostic (no `node:`).
 */
export {
  openRealm,
  type OpenRealmOptions,
  type RealmHandle,
  type HandleContext,
  type HandleResult,
  type CheckpointPolicy,
  type ChangeListener,
  type ChangeNotice,
} from './realm-handle';
export type {
  CheckpointStream,
  RealmStore,
  SealedChange,
  SealedCheckpoint,
  StoredHead,
  StoredRealm,
} from './store';
export {
  CHANGE_FORMAT,
  sealChange,
  openChange,
  type Change,
  type ChangeInput,
  type CallInput,
  type RequestInput,
} from './change';
export type { PasswordCall } from './passwords';
export { REDACTED, isSecretName } from './redact';
export {
  CHECKPOINT_FORMAT,
  sealCheckpoint,
  sealRealmCheckpoint,
  openCheckpoint,
  readCheckpoint,
  checkpointStream,
  collectCheckpoint,
} from './checkpoint';
export { checksum } from './checksum';
export {
  VersionConflictError,
  CorruptStoreError,
  UnsupportedFormatError,
  ReplayMismatchError,
  PersistError,
  RealmClosedError,
  RealmHaltedError,
  LeaseLostError,
  ChangeTooLargeError,
} from './errors';
export { withEventQueues, type LiveRealm } from './live-realm';
export { EventQueues, badEventQueueId, type EventQueueOptions, type QueueClock } from './event-queues';
export { PresenceTable } from './presence-table';
