import { channelEventsTopic } from '../../../core/channels/stream-dict';
import { isAnonymousGroup, type GroupSettingValue } from '../../../core/model/group-setting';
import { EMPTY_TOPIC_DISPLAY_NAME } from '../../../core/model/realm';
import type { Channel, TopicsPolicy } from '../../../core/model/records';
import type { RealmState } from '../../../core/state';
import type { Run } from './run';

/** Zulip's silent mention syntax. */
const userMention = (u: { full_name: string; user_id: number }) => `@_**${u.full_name}|${u.user_id}**`;

/** A Notification Bot message in the channel's events topic (Zulip's `maybe_send_channel_events_notice`). */
function notice(run: Run, content: string): void {
  const c = run.channel;
  run.effects.push({
    type: 'post_notification_message',
    stream_id: c.stream_id,
    topic: channelEventsTopic(c),
    content,
  });
}

const TOPICS_POLICY_NAMES: Readonly<Record<TopicsPolicy, string>> = {
  inherit: 'Automatic',
  allow_empty_topic: `*${EMPTY_TOPIC_DISPLAY_NAME}* topic allowed`,
  disable_empty_topic: `No *${EMPTY_TOPIC_DISPLAY_NAME}* topic`,
  empty_topic_only: `Only *${EMPTY_TOPIC_DISPLAY_NAME}* topic allowed`,
};

export function noticeTopicsPolicy(run: Run, old: TopicsPolicy, policy: TopicsPolicy): void {
  notice(
    run,
    `${userMention(run.user)} changed the "Allow posting to the *${EMPTY_TOPIC_DISPLAY_NAME}* topic?" setting from **${TOPICS_POLICY_NAMES[old]}** to **${TOPICS_POLICY_NAMES[policy]}**.`,
  );
}

function policyName(invite_only: boolean, history: boolean, webPublic: boolean): string {
  if (webPublic) return 'Web-public';
  if (!invite_only) return 'Public';
  return history ? 'Private, shared history' : 'Private, protected history';
}

export function noticePrivacy(run: Run, before: Channel, after: Channel): void {
  const oldName = policyName(before.invite_only, before.history_public_to_subscribers, before.is_web_public);
  const newName = policyName(after.invite_only, after.history_public_to_subscribers, after.is_web_public);
  notice(
    run,
    `${userMention(run.user)} changed the [access permissions](/help/channel-permissions) for this channel from **${oldName}** to **${newName}**.`,
  );
}

export function noticeRetention(run: Run, old: number | null, value: number | null): void {
  // Switching from or to the realm default shows the realm's value.
  const realmDays = run.state.realm.message_retention_days;
  const oldDays = old ?? realmDays;
  const newDays = value ?? realmDays;
  const days = (n: number) => `${n} days`;
  const deleted = `Messages in this channel will now be automatically deleted ${newDays} days after they are sent.`;
  const [oldText, newText, summary] =
    oldDays === -1
      ? ['Forever', days(newDays), deleted]
      : newDays === -1
        ? [days(oldDays), 'Forever', 'Messages in this channel will now be retained forever.']
        : [days(oldDays), days(newDays), deleted];
  notice(
    run,
    `${userMention(run.user)} has changed the [message retention period](/help/message-retention-policy) for this channel:\n` +
      `* **Old retention period**: ${oldText}\n* **New retention period**: ${newText}\n\n${summary}`,
  );
}

export function noticeUnarchived(run: Run): void {
  notice(run, `Channel #**${run.channel.name}** has been unarchived.`);
}

export function noticeDescription(run: Run, old: string, description: string): void {
  const shown = (d: string) => (d === '' ? '*No description.*' : d);
  notice(
    run,
    `${userMention(run.user)} changed the description for this channel.\n\n` +
      `* **Old description:**\n\`\`\`\` quote\n${shown(old)}\n\`\`\`\`\n` +
      `* **New description:**\n\`\`\`\` quote\n${shown(description)}\n\`\`\`\``,
  );
}

export function noticeRename(run: Run, oldName: string, newName: string): void {
  notice(run, `${userMention(run.user)} renamed channel **${oldName}** to **${newName}**.`);
}

/** `oldValue` is read in `oldState`, the state before the change. */
export function noticePostingPermission(
  run: Run,
  oldState: RealmState,
  oldValue: GroupSettingValue,
  newValue: GroupSettingValue,
): void {
  notice(
    run,
    `${userMention(run.user)} changed the [posting permissions](/help/channel-posting-policy) for this channel:\n\n` +
      `* **Old**: ${describeHolders(oldState, oldValue)}\n* **New**: ${describeHolders(run.state, newValue)}\n`,
  );
}

/** Zulip's `get_users_string_with_permission`: group mentions by id, then user mentions by id. */
function describeHolders(state: RealmState, value: GroupSettingValue): string {
  const groupMention = (id: number) => `@_*${state.groups.get(id)?.name ?? id}*`;
  if (!isAnonymousGroup(value)) return groupMention(value);
  const groups = value.direct_subgroups
    .filter((id) => state.groups.has(id))
    .sort((a, b) => a - b)
    .map(groupMention);
  const users = [...value.direct_members]
    .sort((a, b) => a - b)
    .flatMap((id) => {
      const u = state.users.get(id);
      return u ? [userMention(u)] : [];
    });
  return [...groups, ...users].join(', ');
}
