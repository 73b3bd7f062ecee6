import * as z from 'zod/mini';
import { errors } from '../../core/errors';
import { to } from '../../core/events';
import type { NavigationView } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { param, rawParam } from '../../core/params';
import { edit, failure, success } from '../../core/result';
import { strippedString } from '../../core/text/stripped-param';

/** Zulip's built-in view fragments (exact, case-sensitive; `reminders` is the newest). */
const BUILT_IN_VIEW_FRAGMENTS: ReadonlySet<string> = new Set([
  'inbox',
  'recent',
  'feed',
  'drafts',
  'narrow/has/reaction/sender/me',
  'narrow/is/mentioned',
  'narrow/is/starred',
  'scheduled',
  'reminders',
]);

/**
 * POST /api/v1/navigation_views — https://zulip.com/api/add-navigation-view
 *
 * Adds a view to the caller's left sidebar / "More views" menu: a built-in view (by its fixed
 * fragment, never named) or a custom one (any other fragment, named). Views are per user; any
 * role, bots included, may call it.
 *
 * Differs from Zulip: no audit-log row. The library API also accepts `name: null` (= absent).
 *
 * @example
 * ```ts
 * const r = addNavigationView(realm, { userId: 4 }, { fragment: 'narrow/channel/1-Verona', is_pinned: true, name: 'Verona' }, { now });
 * expect(r.status).toBe(200);
 * expect(r.events[0]?.event).toMatchObject({ type: 'navigation_view', op: 'add' });
 * ```
 */
export const addNavigationView = defineOperation({
  name: 'addNavigationView',
  method: 'POST',
  path: '/navigation_views',
  operationId: 'add-navigation-view',
  params: [
    rawParam('fragment', strippedString(), { required: true }),
    param('is_pinned', z.boolean(), { required: true }),
    rawParam('name', z.nullable(strippedString())),
  ],
  handler: ({ state, user, params, ignored }) => {
    if (user === null) return failure(state, errors.notLoggedIn());
    const { fragment, is_pinned } = params;
    const name = params.name ?? null;
    if (BUILT_IN_VIEW_FRAGMENTS.has(fragment)) {
      if (name !== null)
        return failure(state, errors.badRequest('Built-in views cannot have a custom name.'));
    } else if (name === null) {
      return failure(state, errors.badRequest('Custom views must have a valid name.'));
    }
    const views = state.navigationViews.get(user.user_id) ?? [];
    // Zulip checks the fragment first, then the name; both give the same message.
    if (views.some((v) => v.fragment === fragment) || (name !== null && views.some((v) => v.name === name))) {
      return failure(state, errors.badRequest('Navigation view already exists.'));
    }
    const view: NavigationView = Object.freeze({ user_id: user.user_id, fragment, is_pinned, name });
    const next = edit(state, (draft) => {
      draft.navigationViews = draft.navigationViews.set(user.user_id, Object.freeze([...views, view]));
    });
    const event = {
      type: 'navigation_view' as const,
      op: 'add' as const,
      navigation_view: { fragment, is_pinned, name },
    };
    return success(next, { ignored, events: [to([user.user_id], event)] });
  },
});
