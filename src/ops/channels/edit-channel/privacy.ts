import { errors, type ZulipError } from '../../../core/errors';
import type { Channel } from '../../../core/model/records';
import { hasContentAccess, metadataAccessUserIds } from '../../../core/permissions/channels';
import { hasRealmPermission } from '../../../core/permissions/setting-rules';
import type { RealmState } from '../../../core/state';
import { activeNonGuestUserIds } from '../../../core/users/realm-users';
import { contentAccessRequired } from './access';
import { peerAdd, streamCreate, streamUpdate } from './events';
import { noticePrivacy } from './notices';
import type { Params } from './params';
import type { Run } from './run';

/** The privacy settings the request would leave (Zulip's steps 1–3 work on these). */
export interface ProposedPrivacy {
  readonly private: boolean;
  readonly webPublic: boolean;
  readonly default: boolean;
  readonly history: boolean;
}

export function proposePrivacy(state: RealmState, start: Channel, params: Params): ProposedPrivacy {
  return {
    private: params.is_private ?? start.invite_only,
    webPublic: params.is_web_public ?? start.is_web_public,
    default: params.is_default_stream ?? state.defaultChannelIds.has(start.stream_id),
    history:
      params.history_public_to_subscribers ??
      (params.is_private !== undefined ? !params.is_private : start.history_public_to_subscribers),
  };
}

export const historyCombination = () =>
  errors.unsupportedCombination(['history_public_to_subscribers', 'can_create_topic_group']);

/** Steps 1–7: the combination the request would leave, then who may change the privacy. */
export function checkPrivacy(run: Run, params: Params, proposed: ProposedPrivacy): ZulipError | undefined {
  const { state, user } = run;
  const start = run.channel;
  if (
    (proposed.webPublic && !proposed.history) ||
    (proposed.webPublic && proposed.private) ||
    (!proposed.private && !proposed.history)
  ) {
    return errors.badRequest('Invalid parameters');
  }
  if (proposed.private && proposed.default) return errors.badRequest('A default channel cannot be private.');
  // 4 (moderation request channel must stay private): the realm model has no such channel.

  // 5–7: who may change the privacy.
  if (params.is_private !== undefined) {
    if (!hasContentAccess(state, user, start)) return contentAccessRequired();
    const needed = params.is_private ? 'can_create_private_channel_group' : 'can_create_public_channel_group';
    if (!hasRealmPermission(state, user, needed)) return errors.insufficientPermission();
  }
  if (params.is_web_public === true) {
    if (!state.server.web_public_streams_enabled || !state.realm.enable_spectator_access) {
      return errors.badRequest('Web-public channels are not enabled.');
    }
    if (!hasRealmPermission(state, user, 'can_create_web_public_channel_group'))
      return errors.insufficientPermission();
  }
  return undefined;
}

/** Step 9: protected history needs can_create_topic_group = everyone, checked on every such request. */
export function checkProtectedHistory(
  run: Run,
  params: Params,
  proposed: ProposedPrivacy,
): ZulipError | undefined {
  if (
    !proposed.history &&
    params.can_create_topic_group === undefined &&
    run.channel.can_create_topic_group !== run.state.systemGroups['role:everyone']
  ) {
    return historyCombination();
  }
  return undefined;
}

/**
 * Step 10 (Zulip's `do_change_stream_permission`): applied even when nothing changes (Zulip still
 * sends the event and the notice).
 */
export function changePrivacy(run: Run, params: Params, proposed: ProposedPrivacy): undefined {
  if (
    params.is_private === undefined &&
    params.is_web_public === undefined &&
    params.history_public_to_subscribers === undefined
  ) {
    return undefined;
  }
  const before = run.channel;
  run.update((c) => {
    c.invite_only = proposed.private;
    c.history_public_to_subscribers = proposed.history;
    c.is_web_public = proposed.webPublic;
  });
  const after = run.channel;
  let created = new Set<number>();
  if (before.invite_only && !after.invite_only) {
    // Zulip: active non-guests minus those who already had metadata access to the private channel
    // (subscribers, admins and holders of the metadata-granting settings).
    const { state } = run;
    const couldSee = new Set(metadataAccessUserIds(state, before));
    created = new Set(activeNonGuestUserIds(state).filter((id) => !couldSee.has(id)));
    streamCreate(run, created, false);
    peerAdd(run, created);
  }
  const updateTo = metadataAccessUserIds(run.state, after).filter((id) => !created.has(id));
  streamUpdate(
    run,
    'invite_only',
    after.invite_only,
    {
      history_public_to_subscribers: after.history_public_to_subscribers,
      is_web_public: after.is_web_public,
    },
    updateTo,
  );
  noticePrivacy(run, before, after);
  return undefined;
}
