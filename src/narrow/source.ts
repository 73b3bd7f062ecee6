import type { MessageChunk } from '../core/messages/store';
import type { UserRows } from '../core/messages/rows';
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
    let ids = messageIds.get(messages);
    if (ids === undefined) messageIds.set(messages, (ids = messages.map((c) => c.ids)));
    return { chunks: ids, flags: null, messages, accessPerRow: false };
  }
  const rows = rowColumns(plan.ctx.rows);
  return { chunks: rows.ids, flags: rows.flags, messages: null, accessPerRow: rowsAccess(plan) };
}

/**
 * The user's row chunks split into id and flag columns, memoized per rows object (immutable): a
 * chain of requests on one state, or reads between writes, should not rebuild two arrays of
 * hundreds of entries each time.
 */
const messageIds = new WeakMap<readonly MessageChunk[], Int32Array[]>();
const columns = new WeakMap<UserRows, { ids: Int32Array[]; flags: Uint16Array[] }>();
function rowColumns(rows: UserRows): { ids: Int32Array[]; flags: Uint16Array[] } {
  let c = columns.get(rows);
  if (c === undefined) {
    c = { ids: rows.chunks.map((r) => r.ids), flags: rows.chunks.map((r) => r.flags) };
    columns.set(rows, c);
  }
  return c;
}
