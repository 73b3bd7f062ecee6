import { z } from 'zod';
import { zulipError } from '../../core/errors';
import { defineOperation } from '../../core/operation';
import { param } from '../../core/params';
import { failure } from '../../core/result';

/**
 * POST /api/v1/users/me/subscriptions/properties (Zulip operationId `update-subscription-settings`).
 * Not implemented yet: answers 501 until its issue lands.
 */
export const updateSubscriptionSettings = defineOperation<Record<string, unknown>>({
  name: 'updateSubscriptionSettings',
  method: 'POST',
  path: '/users/me/subscriptions/properties',
  operationId: 'update-subscription-settings',
  params: [],
  handler: ({ state }) => failure(state, zulipError('Not implemented', 'NOT_IMPLEMENTED', 501)),
});
void z;
