/**
 * chat-realm: Zulip's REST operations as pure functions over an immutable organization.
 * The core (state, operations, permissions, narrow, wire layer) imports nothing from Node.
 */
export { createRealm, parseRealm, type ParsedRealm, type RealmOptions } from './core/snapshot/create';
export { snapshotRealm } from './core/snapshot/export';
export type {
  RealmSnapshot,
  RealmSnapshotInput,
  SnapshotMessage,
  SnapshotMessageInput,
  SnapshotListName,
  SnapshotRecord,
  SnapshotRecordInput,
} from './core/snapshot/format';
export { createRealmFromChunks, snapshotChunks } from './core/snapshot/snapshot-stream';
export { SnapshotError, type SnapshotIssue } from './core/snapshot/issues';
export { ChatRealmError } from './core/branded-error';
export type { RealmState } from './core/state';
export { untyped } from './core/operation';
export type {
  Actor,
  AnyOperation,
  UntypedOperation,
  DataOf,
  DefinedOperation,
  Operation,
  OperationDef,
  ParamsOf,
} from './core/operation';
export type { OpResult, ZulipSuccess, ZulipErrorBody, EmptyData } from './core/result';
export type { ZulipEvent, AddressedEvent } from './core/events';
export type { Effect } from './core/effects';
export type { ZulipError } from './core/errors';
export {
  cryptoRandom,
  seededRandom,
  generateApiKey,
  type OpContext,
  type RandomSource,
  type PasswordHasher,
} from './core/context';
export { defaultPasswordHasher, scryptPasswordHasher, type ScryptOptions } from './core/passwords';
export type * from './core/model/records';
export type { GroupSettingValue, AnonymousGroup, SystemGroupName } from './core/model/group-setting';
export type { RealmSettings, ServerSettings } from './core/model/realm';
export type { UserSettings, UserSettingName } from './core/model/user-settings';
export { handleApiRequest, type ApiRequest } from './wire/handle';
export { basicAuthHeader } from './wire/auth';
export * from './ops/index';
export {
  simulateRealm,
  PRESETS,
  HEAVY_USER_ID,
  type SimulateOptions,
  type Preset,
} from './simulate/simulate';
export { simulateTraffic, applyTraffic, type TrafficOptions, type TrafficCall } from './simulate/traffic';
// Live clients (issue 13): the register projection and the read endpoints clients start with.
export { registerState } from './core/register/register-state';
export type { RegisterOptions, ClientCapabilities } from './core/register/options';
export { getServerSettings, register, getStreams, getSubscriptions, LIVE_OPERATIONS } from './ops/live/index';
// Presence, typing and the everyday reads (issue 26); presence rows are host state (`PresenceView`).
export {
  updatePresence,
  getRealmPresence,
  getUserPresence,
  setTypingStatus,
  getRealmEmoji,
  getAlertWords,
  getSubscriptionStatus,
} from './ops/live/index';
export type { PresenceRow, PresenceView } from './core/presence/presence';
