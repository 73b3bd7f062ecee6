import { errors, zulipError, type ZulipError } from '../../../core/errors';
import { channelMessageIds } from '../../../core/messages/query';
import { getMessage } from '../../../core/messages/store';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../../core/model/realm';
import type { TopicsPolicy } from '../../../core/model/records';
import { metadataAccessUserIds } from '../../../core/permissions/channels';
import { isRealmAdmin } from '../../../core/permissions/roles';
import { hasRealmPermission } from '../../../core/permissions/setting-rules';
import type { RealmState } from '../../../core/state';
import { streamCreate, streamUpdate } from './events';
import { noticeTopicsPolicy, noticeUnarchived } from './notices';
import type { Run } from './run';

/** Step 8: the topics policy is applied right away. */
export function changeTopicsPolicy(run: Run, policy: TopicsPolicy | undefined): ZulipError | undefined {
  if (policy === undefined) return undefined;
  const { user } = run;
  if (
    policy !== 'inherit' &&
    !isRealmAdmin(user) &&
    !hasRealmPermission(run.state, user, 'can_set_topics_policy_group')
  ) {
    return errors.insufficientPermission();
  }
  if (policy === 'empty_topic_only' && hasNamedTopic(run.state, run.streamId)) {
    return zulipError(
      `To enable this configuration, all messages in this channel must be in the ${EMPTY_TOPIC_DISPLAY_NAME} topic. Consider renaming or deleting other topics.`,
      'BAD_REQUEST',
      400,
      { empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME },
    );
  }
  const old = run.channel.topics_policy;
  if (old === policy) return undefined;
  run.update((c) => {
    c.topics_policy = policy;
  });
  streamUpdate(run, 'topics_policy', policy);
  noticeTopicsPolicy(run, old, policy);
  return undefined;
}

function hasNamedTopic(state: RealmState, streamId: number): boolean {
  return channelMessageIds(state.messages, streamId).some(
    (id) => (getMessage(state.messages, id)?.topic ?? '') !== '',
  );
}

/** Step 13: unarchiving (is_archived=true is silently ignored: archiving is DELETE /streams/{id}). */
export function unarchive(run: Run, isArchived: boolean | undefined): ZulipError | undefined {
  if (isArchived !== false) return undefined;
  const c = run.channel;
  if (!c.is_archived) return errors.badRequest('Channel is not currently deactivated');
  // Zulip counts subscriptions of deactivated users here too.
  const anySubscriber = [...(run.state.subscriptions.get(c.stream_id)?.values() ?? [])].some((s) => s.active);
  if (c.invite_only && !anySubscriber) return errors.badRequest('Channel is private and have no subscribers');
  run.update((d) => {
    d.is_archived = false;
    // Old archiving could leave a private channel web-public; Zulip repairs that here.
    if (d.invite_only && d.is_web_public) d.is_web_public = false;
  });
  const users = metadataAccessUserIds(run.state, run.channel);
  streamUpdate(run, 'is_archived', false, {}, users);
  streamCreate(run, users, true);
  noticeUnarchived(run);
  return undefined;
}

/** Step 17: the folder, always written. */
export function changeFolder(run: Run, folderId: number | null | undefined): ZulipError | undefined {
  if (folderId === undefined) return undefined;
  if (folderId !== null && run.state.channelFolders.get(folderId) === undefined) {
    return errors.badRequest('Invalid channel folder ID');
  }
  run.update((c) => {
    c.folder_id = folderId;
  });
  streamUpdate(run, 'folder_id', folderId);
  return undefined;
}
