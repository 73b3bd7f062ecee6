/** The operations, in the order of docs/OPERATIONS.md (sending and fetching messages last). */
import { updateSettings } from './settings/updateSettings';
import { editChannel } from './channels/editChannel';
import { updateSubscriptionSettings } from './channels/updateSubscriptionSettings';
import { editScheduledMessage } from './scheduled/editScheduledMessage';
import { editUserGroup } from './groups/editUserGroup';
import { getUsers } from './users/getUsers';
import { createCustomProfileField } from './users/createCustomProfileField';
import { unsubscribe } from './channels/unsubscribe';
import { updateMessageFlagsForNarrow } from './messages/updateMessageFlagsForNarrow';
import { deleteTopic } from './channels/deleteTopic';
import { updateProfileData } from './users/updateProfileData';
import { addNavigationView } from './personal/addNavigationView';
import { createSavedSnippet } from './personal/createSavedSnippet';
import { getOwnUser } from './users/getOwnUser';
import { getLinkifiers } from './realm/getLinkifiers';
import { sendTestPushNotification } from './push/sendTestPushNotification';
import { regenerateBotApiKey } from './bots/regenerateBotApiKey';
import { removeFcmToken } from './push/removeFcmToken';
import { deleteBotStorage } from './bots/deleteBotStorage';
import { reorderChannelFolders } from './channels/reorderChannelFolders';
import { sendMessage } from './messages/sendMessage';
import { getMessages } from './messages/getMessages';
import { getMessage } from './messages/getMessage';
// Issue 24, reads: bot storage, flags by id, the mark-as-read family, read endpoints.
import { getBotStorage } from './bots/getBotStorage';
import { updateBotStorage } from './bots/updateBotStorage';
import { updateMessageFlags } from './messages/updateMessageFlags';
import { markAllAsRead } from './messages/markAllAsRead';
import { markStreamAsRead } from './messages/markStreamAsRead';
import { markTopicAsRead } from './messages/markTopicAsRead';
import { getStreamId } from './channels/getStreamId';
import { getStreamById } from './channels/getStreamById';
import { getSubscribers } from './channels/getSubscribers';
import { getStreamTopics } from './channels/getStreamTopics';
import { getUser } from './users/getUser';
import { getUserByEmail } from './users/getUserByEmail';
import { getUserGroups } from './groups/getUserGroups';
import { getUserGroupMembers } from './groups/getUserGroupMembers';
import { getIsUserGroupMember } from './groups/getIsUserGroupMember';
import { getCustomProfileFields } from './users/getCustomProfileFields';
import { renderMessage } from './messages/renderMessage';
import { deleteMessage } from './messages/deleteMessage';
import { updateMessage } from './messages/updateMessage';
import { checkMessagesMatchNarrow } from './messages/checkMessagesMatchNarrow';
import { getMessageHistory } from './messages/getMessageHistory';
import { getStreamEmailAddress } from './channels/getStreamEmailAddress';
// Issue 26: joining and creating channels.
import { subscribe } from './channels/subscribe';
import { addReaction } from './reactions/addReaction';
import { removeReaction } from './reactions/removeReaction';
import { deactivateCustomEmoji } from './realm/deactivateCustomEmoji';
import { updateUserTopic } from './personal/updateUserTopic';
import { muteUser } from './personal/muteUser';
import { unmuteUser } from './personal/unmuteUser';
import { addAlertWords } from './users/addAlertWords';
import { removeAlertWords } from './users/removeAlertWords';
import { updateStatus } from './users/updateStatus';
import { getUserStatus } from './users/getUserStatus';
import { muteTopic } from './personal/muteTopic';

export {
  updateSettings,
  editChannel,
  updateSubscriptionSettings,
  editScheduledMessage,
  editUserGroup,
  getUsers,
  createCustomProfileField,
  unsubscribe,
  updateMessageFlagsForNarrow,
  deleteTopic,
  updateProfileData,
  addNavigationView,
  createSavedSnippet,
  getOwnUser,
  getLinkifiers,
  sendTestPushNotification,
  regenerateBotApiKey,
  removeFcmToken,
  deleteBotStorage,
  reorderChannelFolders,
  sendMessage,
  getMessages,
  getMessage,
  getBotStorage,
  updateBotStorage,
  updateMessageFlags,
  markAllAsRead,
  markStreamAsRead,
  markTopicAsRead,
  getStreamId,
  getStreamById,
  getSubscribers,
  getStreamTopics,
  getUser,
  getUserByEmail,
  getUserGroups,
  getUserGroupMembers,
  getIsUserGroupMember,
  getCustomProfileFields,
  renderMessage,
  deleteMessage,
  updateMessage,
  checkMessagesMatchNarrow,
  getMessageHistory,
  getStreamEmailAddress,
  subscribe,
  addReaction,
  removeReaction,
  deactivateCustomEmoji,
  updateUserTopic,
  muteUser,
  unmuteUser,
  addAlertWords,
  removeAlertWords,
  updateStatus,
  getUserStatus,
  muteTopic,
};

/**
 * Every operation, each carrying its definition (`def`: name, method, path, operationId, parameters).
 * The wire layer routes with this list; hosts can use it to build their own router or docs.
 *
 * @example
 * ```ts
 * const routes = OPERATIONS.map((op) => `${op.def.method} /api/v1${op.def.path}`);
 * expect(routes).toContain('PATCH /api/v1/streams/{stream_id}');
 * const op = OPERATIONS.find((o) => o.def.operationId === 'get-own-user')!;
 * expect(op(realm, { userId: 4 }).body).toMatchObject({ user_id: 4 });
 * ```
 */
export const OPERATIONS = [
  updateSettings,
  editChannel,
  updateSubscriptionSettings,
  editScheduledMessage,
  editUserGroup,
  getUsers,
  createCustomProfileField,
  unsubscribe,
  updateMessageFlagsForNarrow,
  deleteTopic,
  updateProfileData,
  addNavigationView,
  createSavedSnippet,
  getOwnUser,
  getLinkifiers,
  sendTestPushNotification,
  regenerateBotApiKey,
  removeFcmToken,
  deleteBotStorage,
  reorderChannelFolders,
  sendMessage,
  getMessages,
  getMessage,
  getBotStorage,
  updateBotStorage,
  updateMessageFlags,
  markAllAsRead,
  markStreamAsRead,
  markTopicAsRead,
  getStreamId,
  getStreamById,
  getSubscribers,
  getStreamTopics,
  getUser,
  getUserByEmail,
  getUserGroups,
  getUserGroupMembers,
  getIsUserGroupMember,
  getCustomProfileFields,
  renderMessage,
  deleteMessage,
  updateMessage,
  checkMessagesMatchNarrow,
  getMessageHistory,
  getStreamEmailAddress,
  subscribe,
  addReaction,
  removeReaction,
  deactivateCustomEmoji,
  updateUserTopic,
  muteUser,
  unmuteUser,
  addAlertWords,
  removeAlertWords,
  updateStatus,
  getUserStatus,
  muteTopic,
] as const;

/** The name of one of the built-in operations (`'editChannel'`, …). */
export type OperationName = (typeof OPERATIONS)[number]['def']['name'];

/** The built-in operation with the given name, with its parameter and data types. */
export type OperationNamed<N extends OperationName> = Extract<
  (typeof OPERATIONS)[number],
  { readonly def: { readonly name: N } }
>;
