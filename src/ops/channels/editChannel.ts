import * as z from 'zod/mini';
import { errors, type ZulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { failure, success } from '../../core/result';
import { checkAdministerAccess } from './edit-channel/access';
import { changeFolder, changeTopicsPolicy, unarchive } from './edit-channel/archive-folder-topics';
import { changeDefault } from './edit-channel/default-channel';
import { changeDescription, rename } from './edit-channel/name';
import { checkDescriptionLength, settingParams, TOPICS_POLICIES, type Params } from './edit-channel/params';
import { changePrivacy, checkPrivacy, checkProtectedHistory, proposePrivacy } from './edit-channel/privacy';
import { changeRetention } from './edit-channel/retention';
import { Run } from './edit-channel/run';
import { changeSettings, checkDeleteMessagePolicy } from './edit-channel/settings';

/**
 * PATCH /api/v1/streams/{stream_id} — https://zulip.com/api/update-stream
 *
 * Follows Zulip's `update_stream_backend` check by check, in its order. Differences
 * (docs/differences/channels-edit.md):
 * - Zulip commits each step on its own, so a late error leaves earlier changes applied; here every
 *   step runs on a working copy and the request is all or nothing (same error, state unchanged).
 * - The realm model has no `moderation_request_channel`, no `send_channel_events_messages` and no
 *   plan type: the moderation-channel check never fires, notices are always posted, web-public and
 *   retention are never refused for a limited plan.
 * - Notices are `post_notification_message` effects, not messages; audit-log rows are not kept.
 * - `rendered_description` comes from the engine's small Markdown renderer (src/core/markdown.ts).
 *
 * @example
 * ```ts
 * const r = editChannel(realm, { userId: 2 }, { stream_id: 1, description: 'New' }, { now });
 * expect(r.status).toBe(200);
 * expect(r.state.channels.get(1)?.description).toBe('New');
 * // A member may not: errors are values, the state is the same object.
 * const denied = editChannel(realm, { userId: 4 }, { stream_id: 1, description: 'Mine' }, { now });
 * expect(denied.status).toBe(400);
 * expect(denied.state).toBe(realm);
 * ```
 */
export const editChannel = defineOperation({
  name: 'editChannel',
  method: 'PATCH',
  path: '/streams/{stream_id}',
  operationId: 'update-stream',
  pathParams: ['stream_id'],
  params: [
    param('stream_id', z.int(), { required: true }),
    ...settingParams,
    rawParam('description', z.string()),
    param('folder_id', z.nullable(z.int())),
    param('history_public_to_subscribers', z.boolean()),
    param('is_archived', z.boolean()),
    param('is_default_stream', z.boolean()),
    param('is_private', z.boolean()),
    param('is_web_public', z.boolean()),
    param('message_retention_days', z.union([z.string(), z.int()])),
    rawParam('new_name', z.string()),
    rawParam('topics_policy', z.enum(TOPICS_POLICIES)),
  ],
  handler: ({ state, user, params, ctx, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    // 1. Validate what parsing leaves open.
    const invalid = checkDescriptionLength(state, params.description);
    if (invalid) return failure(state, invalid);
    // 2. Authorize against the unchanged state.
    const denied = checkAdministerAccess(state, user, params.stream_id);
    if (denied) return failure(state, denied);
    // 3. Apply Zulip's steps to a working copy (all or nothing), collecting events and notices.
    const run = new Run(state, user, params.stream_id, ctx.now);
    const refused = applySteps(run, params);
    if (refused) return failure(state, refused);
    return success(run.state, { ignored, events: run.events, effects: run.effects });
  },
});

/** Every step of `update_stream_backend`, in its order; the first refusal is returned. */
function applySteps(run: Run, params: Params): ZulipError | undefined {
  const proposed = proposePrivacy(run.state, run.channel, params);
  const steps = [
    () => checkPrivacy(run, params, proposed), // 1–7
    () => changeTopicsPolicy(run, params.topics_policy), // 8
    () => checkProtectedHistory(run, params, proposed), // 9
    () => changePrivacy(run, params, proposed), // 10
    () => changeDefault(run, params.is_default_stream), // 11
    () => changeRetention(run, params.message_retention_days), // 12
    () => unarchive(run, params.is_archived), // 13
    () => checkDeleteMessagePolicy(run, params), // 14
    () => changeDescription(run, params.description), // 15
    () => rename(run, params.new_name), // 16
    () => changeFolder(run, params.folder_id), // 17
    () => changeSettings(run, params, proposed.history), // 18
  ];
  for (const step of steps) {
    const refused = step();
    if (refused) return refused;
  }
  return undefined;
}
