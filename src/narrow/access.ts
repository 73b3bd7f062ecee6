import type { NarrowPlan } from './plan';

/**
 * Which candidates need the per-row channel access check. Outside history mode a user's rows in a
 * channel they can no longer read are not candidates; deciding that per source, where possible
 * once, keeps the check out of the scan loop for the common cases.
 */

/**
 * For an index list: false when no row needs checking (history mode, a conversation, or a
 * readable channel's list), true for lists that mix channels (a sender's), null when the list's one
 * channel is unreadable (no candidate at all).
 */
export function listAccess(plan: NarrowPlan): boolean | null {
  if (plan.history) return false;
  const channel = plan.driveChannel;
  if (channel !== null) return plan.ctx.rowChannelReadable(channel) ? false : null;
  return plan.driveConversation ? false : !plan.ctx.allRowsReadable;
}

/** For the user's own rows (or an id term's one candidate): checked unless every channel is readable. */
export function rowsAccess(plan: NarrowPlan): boolean {
  return !plan.history && !plan.ctx.allRowsReadable;
}
