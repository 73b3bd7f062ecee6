import type { MessageStore } from './messages/store';
import type { RealmState } from './state';

/**
 * The state with another message store, frozen: what every message write ends with. Spelled out
 * field by field because V8 copies a spread of a frozen or spread-made object (every state is one)
 * on its slow path, about 1.5 µs for the 29 fields: more than a whole small send's store append.
 * A literal costs ~50 ns. Every field of `RealmState` is required, so a field added there fails to
 * compile here until it is copied (test/core/with-messages.test.ts checks the keys as well).
 */
export function withMessages(state: RealmState, messages: MessageStore): RealmState {
  return Object.freeze({
    server: state.server,
    realm: state.realm,
    now: state.now,
    users: state.users,
    usersByEmail: state.usersByEmail,
    usersByApiKey: state.usersByApiKey,
    groups: state.groups,
    groupsByName: state.groupsByName,
    systemGroups: state.systemGroups,
    channelFolders: state.channelFolders,
    channels: state.channels,
    channelsByName: state.channelsByName,
    subscriptions: state.subscriptions,
    defaultChannelIds: state.defaultChannelIds,
    messages,
    userTopics: state.userTopics,
    scheduledMessages: state.scheduledMessages,
    customProfileFields: state.customProfileFields,
    linkifiers: state.linkifiers,
    realmEmoji: state.realmEmoji,
    navigationViews: state.navigationViews,
    savedSnippets: state.savedSnippets,
    drafts: state.drafts,
    pushDevices: state.pushDevices,
    botStorage: state.botStorage,
    pendingEmailChanges: state.pendingEmailChanges,
    mutedUsers: state.mutedUsers,
    alertWords: state.alertWords,
    userStatuses: state.userStatuses,
  });
}
