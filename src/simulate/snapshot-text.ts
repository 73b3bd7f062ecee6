import { allMessages, type MessageRecord } from '../core/messages/store';
import { bitsToFlags } from '../core/messages/flags';
import { chunkIndexFor, lowerBound } from '../core/messages/rows';
import { snapshotSections } from '../core/snapshot/export';
import { messageSnapshotFields } from '../core/snapshot/export-messages';
import type { RealmState } from '../core/state';

/**
 * The realm's snapshot (`snapshotRealm`'s canonical form) as JSON text in pieces, for writing
 * organizations too large for one `JSON.stringify` (a million messages with tens of millions of
 * flags). Messages are written in batches; each batch's flags come from one pass over the rows of
 * that id range.
 *
 * @example
 * ```ts
 * const org = simulateRealm({ preset: 'small', messages: 500 });
 * const text = [...snapshotText(org, 100)].join(''); // or pipe the pieces to a file stream
 * expect(JSON.parse(text)).toEqual(snapshotRealm(org));
 * ```
 */
export function* snapshotText(
  state: RealmState,
  batch = 20_000,
  onProgress?: (done: number, total: number) => void,
): Generator<string> {
  // The sections with `messages` left empty (and `last_message_id` when the realm has one).
  const shell = snapshotSections(state) as Record<string, unknown>;
  const keys = Object.keys(shell);
  yield '{';
  let first = true;
  for (const key of keys) {
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    if (key !== 'messages') {
      yield JSON.stringify(shell[key]);
      continue;
    }
    yield '[';
    let n = 0;
    let pending: MessageRecord[] = [];
    const total = state.messages.count;
    const flush = function* (): Generator<string> {
      if (pending.length === 0) return;
      const flags = batchFlags(state, pending[0]!.id, pending[pending.length - 1]!.id);
      for (const m of pending) {
        const out = {
          ...messageSnapshotFields(m, state.messages.edits.get(m.id)),
          flags: flags.get(m.id) ?? {},
        };
        yield `${n++ === 0 ? '' : ','}${JSON.stringify(out)}`;
      }
      onProgress?.(n, total);
      pending = [];
    };
    for (const m of allMessages(state.messages)) {
      pending.push(m);
      if (pending.length >= batch) yield* flush();
    }
    yield* flush();
    yield ']';
  }
  yield '}\n';
}

/** Flags of the messages with ids in [lo, hi], per message then per user (users ascending). */
function batchFlags(state: RealmState, lo: number, hi: number): Map<number, Record<string, string[]>> {
  const out = new Map<number, Record<string, string[]>>();
  const names = new Map<number, string[]>();
  for (const [userId, rows] of state.messages.rows) {
    if (rows.count === 0) continue;
    const key = String(userId);
    let ci = chunkIndexFor(rows, lo);
    let i = lowerBound(rows.chunks[ci]!.ids, lo);
    for (; ci < rows.chunks.length; ci++, i = 0) {
      const c = rows.chunks[ci]!;
      for (; i < c.ids.length; i++) {
        const id = c.ids[i]!;
        if (id > hi) break;
        const bits = c.flags[i]!;
        let list = names.get(bits);
        if (!list) names.set(bits, (list = bitsToFlags(bits)));
        let flags = out.get(id);
        if (!flags) out.set(id, (flags = {}));
        flags[key] = [...list];
      }
      if (i < c.ids.length) break;
    }
  }
  return out;
}
