import { zulipError, type ZulipError } from '../core/errors';
import type { User } from '../core/model/records';
import type { RealmState } from '../core/state';
import { applyChannel, applyChannels, applyTopic, settlePendingTopics } from './build-channel';
import { applyHas, applyIn, applyIs } from './build-flags';
import { applyId } from './build-id';
import { applyDm, applyDmIncluding, applyGroupPmWith, applySender } from './build-people';
import { applySearch } from './build-search';
import { NarrowContext } from './context';
import { includeHistory } from './history';
import type { BuildResult } from './plan';
import { NarrowError, PlanBuilder } from './plan-builder';
import type { NarrowTerm } from './terms';

/**
 * Turns validated terms into an evaluation plan for one user, raising Zulip's `BAD_NARROW` errors
 * in term order (search terms are joined and applied last, as Zulip does). Each operator family
 * lives in its own `build-*` module; this one dispatches and assembles the plan.
 */
export type { BuildResult, FlagTest, MessageTest, NarrowPlan } from './plan';

export function badNarrow(desc: string): ZulipError {
  return zulipError(`Invalid narrow operator: ${desc}`, 'BAD_NARROW', 400, { desc });
}

/**
 * Resolves parsed narrow terms for one user into a plan over the message store (names to ids,
 * access rules), or Zulip's BAD_NARROW error.
 *
 * @example
 * ```ts
 * const hamlet = realm.users.get(4)!;
 * const built = buildNarrow(realm, hamlet, [{ operator: 'channel', operand: 'Verona', negated: false }]);
 * expect(built.ok).toBe(true);
 * const unknown = buildNarrow(realm, hamlet, [{ operator: 'channel', operand: 'Atlantis', negated: false }]);
 * expect(unknown).toMatchObject({ ok: false, error: { code: 'BAD_NARROW' } });
 * ```
 */
export function buildNarrow(state: RealmState, user: User, terms: readonly NarrowTerm[]): BuildResult {
  const ctx = new NarrowContext(state, user);
  const builder = new PlanBuilder(ctx);
  const history = includeHistory(ctx, terms);
  const search: string[] = [];
  try {
    for (const t of terms) {
      if (t.operator === 'search') search.push(String(t.operand));
      else applyTerm(builder, t);
    }
  } catch (e) {
    if (e instanceof NarrowError) return { ok: false, error: badNarrow(e.desc) };
    throw e;
  }
  settlePendingTopics(builder);
  applySearch(builder, search);
  return { ok: true, plan: builder.finish(history) };
}

/** One non-search term, by operator (legacy names included); an unknown operator is BAD_NARROW. */
function applyTerm(b: PlanBuilder, t: NarrowTerm): void {
  switch (t.operator) {
    case 'channel':
    case 'stream':
      return applyChannel(b, t);
    case 'channels':
    case 'streams':
      return applyChannels(b, t);
    case 'topic':
      return applyTopic(b, t);
    case 'sender':
      return applySender(b, t);
    case 'dm':
    case 'pm-with':
    case 'pm_with':
      return applyDm(b, t);
    case 'dm-including':
      return applyDmIncluding(b, t);
    case 'group-pm-with':
    case 'group_pm_with':
      return applyGroupPmWith(b, t);
    case 'is':
      return applyIs(b, t);
    case 'in':
      return applyIn(b, t);
    case 'has':
      return applyHas(b, t);
    case 'id':
      return applyId(b, t);
    case 'near':
      // `near` adds no condition to the narrow (as in Zulip).
      return;
    default:
      throw new NarrowError(`unknown operator ${t.operator}`);
  }
}
