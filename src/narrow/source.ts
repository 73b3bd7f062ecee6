import type { MessageChunk } from '../core/messages/store';
import type { RowChunk } from '../core/messages/rows';
import { listAccess, rowsAccess } from './access';
import type { NarrowPlan } from './plan';

/**
 * Candidate selection: where a scan takes its ids from. An id term gives one candidate, else the
 * plan's driving index list, else every message (history mode) or the user's own rows. Never a
 * scan of the organization for a narrow that names a channel, topic or conversation.
 */

/** A sorted id source: chunks of ids, or the user's rows themselves (ids with their flags). */
export interface Source {
  /** The id chunks (empty when `rows` is the source). */
  readonly chunks: readonly Int32Array[];
  /**
   * The user's row chunks when they are the candidates, read in place: a chain of requests makes
   * new rows each time, and splitting them into id and flag columns per request cost more than
   * the window's scan.
   */
  readonly rows: readonly RowChunk[] | null;
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
      rows: null,
      messages: null,
      accessPerRow: rowsAccess(plan),
    };
  }
  if (plan.drive !== null) {
    const access = listAccess(plan);
    if (access === null) return null;
    return { chunks: plan.drive.chunks, rows: null, messages: null, accessPerRow: access };
  }
  if (plan.history) {
    const messages = plan.ctx.state.messages.chunks;
    let ids = messageIds.get(messages);
    if (ids === undefined) messageIds.set(messages, (ids = messages.map((c) => c.ids)));
    return { chunks: ids, rows: null, messages, accessPerRow: false };
  }
  return { chunks: NO_CHUNKS, rows: plan.ctx.rows.chunks, messages: null, accessPerRow: rowsAccess(plan) };
}

const NO_CHUNKS: readonly Int32Array[] = Object.freeze([]);

/** How many chunks the source has. */
export function chunkCount(src: Source): number {
  return src.rows !== null ? src.rows.length : src.chunks.length;
}

/** The ids of chunk `ci` (undefined past either end). */
export function idsAt(src: Source, ci: number): Int32Array | undefined {
  return src.rows !== null ? src.rows[ci]?.ids : src.chunks[ci];
}

/** The store's id column, memoized per chunk list (immutable; shared by every state until a message is added). */
const messageIds = new WeakMap<readonly MessageChunk[], Int32Array[]>();
