import * as z from 'zod/mini';
import { errors, zulipError } from '../../core/errors';
import { to } from '../../core/events';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { isRealmAdmin } from '../../core/permissions/roles';
import { edit, editRecord, failure, success } from '../../core/result';
import { activeUserIds } from '../../core/users/realm-users';
import type { RealmState } from '../../core/state';

/**
 * PATCH /api/v1/channel_folders (Zulip operationId `patch-channel-folders`):
 * https://zulip.com/api/patch-channel-folders
 *
 * Sets every channel folder's `order` to its position in `order`. The list must name every folder of
 * the organization, archived ones included; ids that are not folders are ignored, and a folder listed
 * twice takes its last position. No difference from Zulip known.
 *
 * @example
 * ```ts
 * const r = reorderChannelFolders(realm, { userId: 2 }, { order: [3, 2, 1] }, { now });
 * expect(r.status).toBe(200);
 * expect(r.state.channelFolders.get(3)?.order).toBe(0);
 * ```
 */
export const reorderChannelFolders = defineOperation({
  name: 'reorderChannelFolders',
  method: 'PATCH',
  path: '/channel_folders',
  operationId: 'patch-channel-folders',
  guard: (_state, user) => (isRealmAdmin(user) ? undefined : errors.mustBeAdmin()),
  params: [param('order', z.array(z.int()), { required: true })],
  handler: ({ state, params, ignored }) => {
    // Later positions overwrite earlier ones, so a duplicated id keeps its last index.
    const position = new Map<number, number>();
    params.order.forEach((id, index) => position.set(id, index));
    for (const folder of state.channelFolders.values()) {
      if (!position.has(folder.id)) return failure(state, zulipError('Invalid order mapping.'));
    }
    const next = applyOrder(state, position);
    const event = to(activeUserIds(next), {
      type: 'channel_folder',
      op: 'reorder',
      order: [...params.order],
    });
    return success(next, { ignored, events: [event] });
  },
});

/** The state with each folder's new `order`; the same object when no folder moves. */
function applyOrder(state: RealmState, position: ReadonlyMap<number, number>): RealmState {
  const moved = [...state.channelFolders.values()].filter((f) => f.order !== position.get(f.id));
  if (moved.length === 0) return state;
  return edit(state, (draft) => {
    for (const folder of moved) {
      const order = position.get(folder.id)!;
      draft.channelFolders = draft.channelFolders.set(
        folder.id,
        editRecord(folder, (d) => {
          d.order = order;
        }),
      );
    }
  });
}
