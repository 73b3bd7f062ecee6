import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bitsToFlags } from '../../src/core/messages/flags';
import { forEachRow } from '../../src/core/messages/rows';
import { allMessages } from '../../src/core/messages/store';
import { isSubscribed } from '../../src/core/permissions/channels';
import type { RealmState } from '../../src/core/state';
import { updateMessageFlagsForNarrow } from '../../src/ops/index';
import { cast, devRealm, testCtx } from '../support/realm';
import { fcParams } from './runs';

/**
 * Model-based sequences over POST /messages/flags/narrow: add and remove read, starred and
 * collapsed over all of one's messages, the starred ones, or a whole channel (history included),
 * with invalid flags and operations mixed in, by several users; checked after every step against a
 * simple model of each user's rows (message id → flags), written from the digest's rules (§3.6):
 * a message without a row counts as {read, historical}; adding read never creates a row; other
 * changes create historical rows; removing read skips channels one is not subscribed to.
 */
const initial = devRealm();
const USERS = [cast.hamlet, cast.cordelia, cast.polonius, cast.iago] as const;
const EDITABLE = ['read', 'starred', 'collapsed'] as const;
/** Public channels with shared history: a channel narrow reaches every message in them. */
const CHANNELS = [1, 2] as const;
const CHANNEL_OF = new Map<number, number | null>(
  [...allMessages(initial.messages)].map((m) => [m.id, m.stream_id]),
);
const CHANNEL_MESSAGES = (c: number) =>
  [...CHANNEL_OF]
    .filter(([, s]) => s === c)
    .map(([id]) => id)
    .sort((a, b) => a - b);

type Rows = Map<number, Set<string>>;
type Model = Map<number, Rows>;
interface Real {
  state: RealmState;
}

function rowsOf(state: RealmState, userId: number): Rows {
  const out: Rows = new Map();
  const rows = state.messages.rows.get(userId);
  if (rows) forEachRow(rows, (id, bits) => void out.set(id, new Set(bitsToFlags(bits))));
  return out;
}
const modelOf = (state: RealmState): Model => new Map(USERS.map((u) => [u, rowsOf(state, u)]));
const plain = (m: Model) => [...m].map(([u, rows]) => [u, [...rows].map(([id, f]) => [id, [...f].sort()])]);

type Narrow = { kind: 'all' } | { kind: 'starred' } | { kind: 'channel'; id: number };

class Update implements fc.Command<Model, Real> {
  constructor(
    readonly userId: number,
    readonly narrow: Narrow,
    readonly op: string,
    readonly flag: string,
  ) {}
  check = () => true;
  run(model: Model, real: Real): void {
    const before = real.state;
    const narrow =
      this.narrow.kind === 'all'
        ? []
        : this.narrow.kind === 'starred'
          ? [{ operator: 'is', operand: 'starred' }]
          : [{ operator: 'channel', operand: this.narrow.id }];
    const r = updateMessageFlagsForNarrow(
      before,
      { userId: this.userId },
      { anchor: 'oldest', num_before: 0, num_after: 1000, narrow, op: this.op, flag: this.flag },
      testCtx(),
    );
    const rows = model.get(this.userId)!;
    const valid =
      (EDITABLE as readonly string[]).includes(this.flag) && (this.op === 'add' || this.op === 'remove');
    // A channel narrow needs access to the channel; the model only uses channels users are on.
    const reachable = this.narrow.kind !== 'channel' || isSubscribed(before, this.narrow.id, this.userId);
    if (!valid || !reachable) {
      if (!valid) expect(r.body.result).toBe('error');
      if (r.body.result === 'error') {
        expect(r.state).toBe(before);
        expect(r.events).toEqual([]);
      }
      real.state = r.state;
      expect(plain(modelOf(real.state))).toEqual(plain(model));
      return;
    }
    expect(r.body.result, JSON.stringify(r.body)).toBe('success');

    const candidates =
      this.narrow.kind === 'all'
        ? [...rows.keys()]
        : this.narrow.kind === 'starred'
          ? [...rows].filter(([, f]) => f.has('starred')).map(([id]) => id)
          : CHANNEL_MESSAGES(this.narrow.id);
    const add = this.op === 'add';
    const changed: number[] = [];
    for (const id of candidates.sort((a, b) => a - b)) {
      const stream = CHANNEL_OF.get(id) ?? null;
      if (this.flag === 'read' && !add && stream !== null && !isSubscribed(before, stream, this.userId))
        continue;
      const current = rows.get(id) ?? new Set(['read', 'historical']);
      if (current.has(this.flag) === add) continue;
      changed.push(id);
      const next = new Set(current);
      if (add) next.add(this.flag);
      else next.delete(this.flag);
      rows.set(id, next);
    }
    expect(r.body['updated_count']).toBe(changed.length);
    expect(r.events).toHaveLength(1);
    expect(r.events[0]!.users).toEqual([this.userId]);
    expect((r.events[0]!.event as unknown as { messages: number[] }).messages).toEqual(changed);
    real.state = r.state;
    expect(plain(modelOf(real.state))).toEqual(plain(model));
  }
  toString = () => `Update(${this.userId}, ${JSON.stringify(this.narrow)}, ${this.op}, ${this.flag})`;
}

const narrow: fc.Arbitrary<Narrow> = fc.oneof(
  fc.constant<Narrow>({ kind: 'all' }),
  fc.constant<Narrow>({ kind: 'starred' }),
  fc.constantFrom(...CHANNELS).map((id): Narrow => ({ kind: 'channel', id })),
);
const commands = [
  fc
    .tuple(
      fc.constantFrom(...USERS),
      narrow,
      fc.oneof(
        { arbitrary: fc.constantFrom('add', 'remove'), weight: 9 },
        { arbitrary: fc.constantFrom('toggle', 'ADD'), weight: 1 },
      ),
      fc.oneof(
        { arbitrary: fc.constantFrom(...EDITABLE), weight: 9 },
        { arbitrary: fc.constantFrom('mentioned', 'historical', 'bogus'), weight: 1 },
      ),
    )
    .map(([u, n, o, f]) => new Update(u, n, o, f)),
];

describe('model: message flags', () => {
  it('flag updates over narrows follow a table of rows', () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 15 }), (cmds) => {
        fc.modelRun(() => ({ model: modelOf(initial), real: { state: initial } }), cmds);
      }),
      fcParams(60),
    );
  });
});
