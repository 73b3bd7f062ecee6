import type { MessageChunk } from '../core/messages/store';
import { listAccess, rowsAccess } from './access';
import type { NarrowPlan } from './plan';

/**
 * Candidate selection: where a scan takes its ids from. An id term gives one candidate, else the
 * plan's driving index list, else every message (history mode) or the user's own rows. Never a
 * scan of the organization for a narrow that names a channel, topic or conversation.
 */

/** A sorted id source: chunks of ids, with the flags alongside when the source is the user's rows. */
export interface Source {
  readonly chunks: readonly Int32Array[];
  readonly flags: readonly Uint16Array[] | null;
  /** The message store's own chunks (history mode over every message): no lookup needed. */
  readonly messages: readonly MessageChunk[] | null;
  /** Whether each channel row must pass the access rule (rows of channels the user cannot read are skipped). */
  readonly accessPerRow: boolean;
}

/** The plan's candidates, or null when it can match nothing. */
export function sourceOf(plan: NarrowPlan): Source | null {
  if (plan.empty) return null;
  if (plan.single !== null) {
    return {
      chunks: [Int32Array.of(plan.single)],
      flags: null,
      messages: null,
      accessPerRow: rowsAccess(plan),
    };
  }
  if (plan.drive !== null) {
    const access = listAccess(plan);
    if (access === null) return null;
    return { chunks: plan.drive.chunks, flags: null, messages: null, accessPerRow: access };
  }
  if (plan.history) {
    const messages = plan.ctx.state.messages.chunks;
    return { chunks: messages.map((c) => c.ids), flags: null, messages, accessPerRow: false };
  }
  const rows = plan.ctx.rows;
  return {
    chunks: rows.chunks.map((c) => c.ids),
    flags: rows.chunks.map((c) => c.flags),
    messages: null,
    accessPerRow: rowsAccess(plan),
  };
}
