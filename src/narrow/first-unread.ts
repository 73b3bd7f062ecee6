import { FLAG_BITS } from '../core/messages/flags';
import { excludedFromHome } from './context';
import type { MessageTest, NarrowPlan } from './plan';
import { scan, singleOut } from './scan';
import { sourceOf } from './source';
import { NEWEST } from './window';

/**
 * The `first_unread` anchor: the oldest unread message of the narrow among the user's own rows,
 * skipping muted topics and channels (a channel term limits topic muting to that channel and
 * turns channel muting off; DM narrows skip muting). NEWEST when there is none.
 *
 * @example
 * ```ts
 * const built = buildNarrow(realm, realm.users.get(4)!, []);
 * if (!built.ok) throw new Error(built.error.msg);
 * const anchor = firstUnreadAnchor(built.plan);
 * const window = selectWindow(built.plan, anchor, 0, 10, true);
 * if (anchor < 10 ** 16) expect(window.ids[0]).toBe(anchor);
 * ```
 */
export function firstUnreadAnchor(plan: NarrowPlan): number {
  // The same narrow, limited to unread rows the user holds and, unless a DM narrow, not muted.
  const rowsOnly: NarrowPlan = {
    ...plan,
    history: false,
    flagTests: [...plan.flagTests, { mask: FLAG_BITS.read, set: false }],
    messageTests: plan.dmNarrow ? plan.messageTests : [...plan.messageTests, mutingTest(plan)],
  };
  const src = sourceOf(rowsOnly);
  if (src === null) return NEWEST;
  const out = singleOut();
  scan(rowsOnly, src, 0, 1, true, 1, out);
  return out.at === 1 ? out.ids[0]! : NEWEST;
}

/** Not muted, as first_unread sees it: with a channel term, only that channel's muted topics count. */
function mutingTest(plan: NarrowPlan): MessageTest {
  const muting = plan.ctx.mutingInfo;
  const channel = plan.channelTerm;
  if (channel === null)
    return (c, i) => !(c.recipient[i]! > 0 && excludedFromHome(muting, c.recipient[i]!, c.topicKey[i]!));
  const topics = muting.policies.get(channel);
  return (c, i) => !(c.recipient[i] === channel && topics?.get(c.topicKey[i]!) === 1);
}
