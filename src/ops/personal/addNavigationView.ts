import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * POST /api/v1/navigation_views (Zulip operationId `add-navigation-view`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const addNavigationView = defineOperation<Record<string, unknown>>({
  name: 'addNavigationView',
  method: 'POST',
  path: '/navigation_views',
  operationId: 'add-navigation-view',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
