import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * PATCH /api/v1/channel_folders (Zulip operationId `patch-channel-folders`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const reorderChannelFolders = defineOperation<Record<string, unknown>>({
  name: 'reorderChannelFolders',
  method: 'PATCH',
  path: '/channel_folders',
  operationId: 'patch-channel-folders',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
