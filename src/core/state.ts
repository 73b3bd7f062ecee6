import type { IntMap } from './collections/int-map';
import type { StrMap } from './collections/str-map';
import type { SystemGroupName } from './model/group-setting';
import type { MessageStore } from './messages/store';
import type { RealmSettings, ServerSettings } from './model/realm';
import type {
  BotStorageEntry,
  Channel,
  ChannelFolder,
  CustomProfileField,
  Draft,
  Linkifier,
  MutedUser,
  RealmEmoji,
  NavigationView,
  PendingEmailChange,
  PushDevice,
  SavedSnippet,
  ScheduledMessage,
  Subscription,
  User,
  UserGroup,
  UserStatus,
  UserTopic,
} from './model/records';

/**
 * One organization, immutable. Collections that grow with the organization are persistent maps
 * (`IntMap`/`StrMap`), so changing one record copies O(log n) nodes; small records are frozen plain
 * objects. Index fields (`…By…`) are kept in step by the mutators in `state-edit.ts`.
 */
export interface RealmState {
  readonly server: ServerSettings;
  readonly realm: RealmSettings;
  /** The moment the snapshot describes (UNIX seconds), or null. */
  readonly now: number | null;

  readonly users: IntMap<User>;
  /** Lower-cased API email → user id (Zulip matches emails case-insensitively). */
  readonly usersByEmail: StrMap<number>;
  /** API key → user id, for authentication. */
  readonly usersByApiKey: StrMap<number>;

  /** Every group, system groups included. */
  readonly groups: IntMap<UserGroup>;
  /** Group name → id (case-sensitive, as Zulip's uniqueness check). */
  readonly groupsByName: StrMap<number>;
  readonly systemGroups: Readonly<Record<SystemGroupName, number>>;

  readonly channelFolders: IntMap<ChannelFolder>;
  readonly channels: IntMap<Channel>;
  /** Lower-cased channel name → id (Zulip's names are unique case-insensitively). */
  readonly channelsByName: StrMap<number>;
  /** stream_id → user_id → subscription (active or not). */
  readonly subscriptions: IntMap<IntMap<Subscription>>;
  readonly defaultChannelIds: IntMap<true>;

  readonly messages: MessageStore;
  /** user_id → rows; few per user. */
  readonly userTopics: IntMap<readonly UserTopic[]>;
  readonly scheduledMessages: IntMap<ScheduledMessage>;
  readonly customProfileFields: IntMap<CustomProfileField>;
  /** In processing order. */
  readonly linkifiers: readonly Linkifier[];
  /** Custom emoji by id, deactivated ones included (their reactions stay). */
  readonly realmEmoji: IntMap<RealmEmoji>;
  /** user_id → that user's views. */
  readonly navigationViews: IntMap<readonly NavigationView[]>;
  readonly savedSnippets: IntMap<SavedSnippet>;
  readonly drafts: IntMap<Draft>;
  /** user_id → devices. */
  readonly pushDevices: IntMap<readonly PushDevice[]>;
  /** bot id → rows. */
  readonly botStorage: IntMap<readonly BotStorageEntry[]>;
  readonly pendingEmailChanges: IntMap<PendingEmailChange>;
  /** muter's user_id → the users they muted, oldest first. */
  readonly mutedUsers: IntMap<readonly MutedUser[]>;
  /** user_id → alert words, in the order they were added. */
  readonly alertWords: IntMap<readonly string[]>;
  /** user_id → status; users without a status have no entry. */
  readonly userStatuses: IntMap<UserStatus>;
}
