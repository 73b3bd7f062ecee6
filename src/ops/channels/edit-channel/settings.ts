import { streamPostPolicy, StreamPostPolicy } from '../../../core/channels/stream-dict';
import { errors, type ZulipError } from '../../../core/errors';
import type { ChannelGroupSettingName } from '../../../core/model/records';
import { hasContentAccess, metadataAccessUserIds } from '../../../core/permissions/channels';
import { settingApiValue } from '../../../core/permissions/groups';
import { isRealmAdmin } from '../../../core/permissions/roles';
import { CHANNEL_SETTING_RULES, hasRealmPermission } from '../../../core/permissions/setting-rules';
import {
  compareSettingChange,
  validateSettingValue,
  type SettingChangeRequest,
} from '../../../core/permissions/setting-update';
import { contentAccessRequired } from './access';
import { peerAdd, streamCreate, streamDelete, streamUpdate } from './events';
import { noticePostingPermission } from './notices';
import { SETTING_APPLY_ORDER, type Params } from './params';
import { historyCombination } from './privacy';
import type { Run } from './run';

/** Settings whose holders see the channel's metadata (and get create/delete events when that changes). */
const GRANTS_METADATA_ACCESS: ReadonlySet<ChannelGroupSettingName> = new Set([
  'can_add_subscribers_group',
  'can_administer_channel_group',
  'can_subscribe_group',
]);

/** Settings only a caller with content access may change. */
const REQUIRES_CONTENT_ACCESS: ReadonlySet<ChannelGroupSettingName> = new Set([
  'can_add_subscribers_group',
  'can_subscribe_group',
]);

/** Step 14: the channel's delete-message settings need the realm-level permission, even as a no-op. */
export function checkDeleteMessagePolicy(run: Run, params: Params): ZulipError | undefined {
  const { user } = run;
  if (
    (params.can_delete_any_message_group !== undefined ||
      params.can_delete_own_message_group !== undefined) &&
    !isRealmAdmin(user) &&
    !hasRealmPermission(run.state, user, 'can_set_delete_message_policy_group')
  ) {
    return errors.insufficientPermission();
  }
  return undefined;
}

/** Step 18: the group settings, one by one in Zulip's order. */
export function changeSettings(run: Run, params: Params, proposedHistory: boolean): ZulipError | undefined {
  for (const name of SETTING_APPLY_ORDER) {
    const request = params[name];
    if (request === undefined) continue;
    const refused = changeSetting(run, name, request, proposedHistory);
    if (refused) return refused;
  }
  return undefined;
}

function changeSetting(
  run: Run,
  name: ChannelGroupSettingName,
  request: SettingChangeRequest,
  proposedHistory: boolean,
): ZulipError | undefined {
  const { state, user } = run;
  const rule = CHANNEL_SETTING_RULES[name];
  const before = run.channel;
  const compared = compareSettingChange(state, before[name], request);
  if (compared.kind === 'error') return compared.error;
  if (compared.kind === 'unchanged') return undefined;
  const next = compared.value;
  if (REQUIRES_CONTENT_ACCESS.has(name) && !hasContentAccess(state, user, before))
    return contentAccessRequired();
  if (name === 'can_create_topic_group' && !proposedHistory && next !== state.systemGroups['role:everyone']) {
    return historyCombination();
  }
  const invalid = validateSettingValue(state, name, rule, request.new);
  if (invalid) return invalid;

  const grantsMetadata = GRANTS_METADATA_ACCESS.has(name);
  const hadAccess = grantsMetadata ? new Set(metadataAccessUserIds(state, before)) : new Set<number>();
  run.update((c) => {
    c[name] = next;
  });
  const after = run.channel;
  const newApi = settingApiValue(run.state, after[name]);
  const hasAccess = metadataAccessUserIds(run.state, after);
  if (grantsMetadata) {
    const gaining = hasAccess.filter((id) => !hadAccess.has(id));
    const now = new Set(hasAccess);
    const losing = [...hadAccess].filter((id) => !now.has(id));
    streamUpdate(
      run,
      name,
      newApi,
      {},
      hasAccess.filter((id) => hadAccess.has(id)),
    );
    if (gaining.length > 0) {
      streamCreate(run, gaining, false);
      peerAdd(run, gaining);
    }
    if (losing.length > 0) streamDelete(run, losing);
  } else {
    streamUpdate(run, name, newApi, {}, hasAccess);
  }

  if (name === 'can_send_message_group') {
    const oldPolicy = streamPostPolicy(state, before.can_send_message_group);
    const newPolicy = streamPostPolicy(run.state, after.can_send_message_group);
    if (oldPolicy !== newPolicy) {
      streamUpdate(run, 'stream_post_policy', newPolicy, {}, hasAccess);
      streamUpdate(run, 'is_announcement_only', newPolicy === StreamPostPolicy.admins, {}, hasAccess);
    }
    noticePostingPermission(run, state, settingApiValue(state, before[name]), newApi);
  }
  return undefined;
}
