import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * POST /api/v1/saved_snippets (Zulip operationId `create-saved-snippet`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const createSavedSnippet = defineOperation<Record<string, unknown>>({
  name: 'createSavedSnippet',
  method: 'POST',
  path: '/saved_snippets',
  operationId: 'create-saved-snippet',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
