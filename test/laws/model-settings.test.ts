import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RealmState } from '../../src/core/state';
import { updateSettings } from '../../src/ops/index';
import { cast, devRealm, testCtx } from '../support/realm';
import { fcParams } from './runs';

/**
 * Model-based sequences over PATCH /settings: one's own booleans, choices and name, invalid values
 * mixed into otherwise valid requests (all or nothing), bots (always refused), and an
 * administrator's bulk edits (`target_users`, with and without `skip_if_already_edited`), checked
 * after every step against a simple model: per user, the tracked settings, the full name and the
 * settings the user changed themselves (digest §1).
 */
const initial = devRealm();
const USERS = [
  cast.desdemona,
  cast.iago,
  cast.hamlet,
  cast.cordelia,
  cast.polonius,
  cast.aaron,
  cast.defaultBot,
] as const;
const BOOLS = ['twenty_four_hour_time', 'enter_sends', 'starred_message_counts'] as const;
const TRACKED = [...BOOLS, 'color_scheme', 'emojiset'] as const;
type Tracked = (typeof TRACKED)[number];

interface UserModel {
  settings: Record<Tracked, unknown>;
  full_name: string;
  edited: Set<string>;
}
type Model = Map<number, UserModel>;
interface Real {
  state: RealmState;
}

function modelOf(state: RealmState): Model {
  const out: Model = new Map();
  for (const id of USERS) {
    const u = state.users.get(id)!;
    out.set(id, {
      settings: Object.fromEntries(TRACKED.map((k) => [k, u.settings[k]])) as Record<Tracked, unknown>,
      full_name: u.full_name,
      edited: new Set(u.settings_edited_by_user.filter((n) => (TRACKED as readonly string[]).includes(n))),
    });
  }
  return out;
}

const VALID: Record<Tracked, (v: unknown) => boolean> = {
  twenty_four_hour_time: (v) => typeof v === 'boolean',
  enter_sends: (v) => typeof v === 'boolean',
  starred_message_counts: (v) => typeof v === 'boolean',
  color_scheme: (v) => v === 1 || v === 2 || v === 3,
  emojiset: (v) => v === 'google' || v === 'twitter' || v === 'text',
};

/** The digest's name rule (§1.3), for the names the commands use. */
function nameError(raw: string): boolean {
  const name = raw.trim();
  return name.length === 0 || [...name].length > 100;
}

class Own implements fc.Command<Model, Real> {
  constructor(
    readonly userId: number,
    readonly changes: Partial<Record<Tracked, unknown>>,
    readonly fullName: string | undefined,
  ) {}
  check = () => true;
  run(model: Model, real: Real): void {
    const before = real.state;
    const params: Record<string, unknown> = {
      ...this.changes,
      ...(this.fullName === undefined ? {} : { full_name: this.fullName }),
    };
    const r = updateSettings(before, { userId: this.userId }, params, testCtx());
    const me = model.get(this.userId)!;
    const isBot = before.users.get(this.userId)!.is_bot;
    const valid =
      !isBot &&
      Object.entries(this.changes).every(([k, v]) => VALID[k as Tracked](v)) &&
      (this.fullName === undefined || this.fullName === me.full_name || !nameError(this.fullName));
    expect(r.body.result, `${this.toString()}: ${JSON.stringify(r.body)}`).toBe(valid ? 'success' : 'error');
    if (valid) {
      for (const [k, v] of Object.entries(this.changes)) {
        if (me.settings[k as Tracked] !== v) me.edited.add(k);
        me.settings[k as Tracked] = v;
      }
      if (this.fullName !== undefined && this.fullName !== me.full_name) me.full_name = this.fullName.trim();
    } else {
      expect(r.state).toBe(before);
      expect(r.events).toEqual([]);
    }
    real.state = r.state;
    expect(modelOf(real.state)).toEqual(model);
  }
  toString = () => `Own(${this.userId}, ${JSON.stringify(this.changes)}, ${JSON.stringify(this.fullName)})`;
}

class Bulk implements fc.Command<Model, Real> {
  constructor(
    readonly actorId: number,
    readonly targets: readonly number[],
    readonly setting: (typeof BOOLS)[number],
    readonly value: boolean,
    readonly skip: boolean,
  ) {}
  check = () => true;
  run(model: Model, real: Real): void {
    const before = real.state;
    const params = {
      [this.setting]: this.value,
      target_users: { user_ids: this.targets, skip_if_already_edited: this.skip },
    };
    const r = updateSettings(before, { userId: this.actorId }, params, testCtx());
    const actor = before.users.get(this.actorId)!;
    const allowed = !actor.is_bot && actor.role <= 200;
    expect(r.body.result, `${this.toString()}: ${JSON.stringify(r.body)}`).toBe(
      allowed ? 'success' : 'error',
    );
    if (allowed) {
      for (const t of this.targets) {
        const u = model.get(t)!;
        // Bots are left out; so are users who changed the setting themselves, when asked.
        if (before.users.get(t)!.is_bot) continue;
        if (this.skip && u.edited.has(this.setting)) continue;
        // An administrator among the targets changes their own setting: acting = modified user,
        // which Zulip's audit log records as a self-edit.
        if (t === this.actorId && u.settings[this.setting] !== this.value) u.edited.add(this.setting);
        u.settings[this.setting] = this.value;
      }
    } else {
      expect(r.state).toBe(before);
    }
    real.state = r.state;
    expect(modelOf(real.state)).toEqual(model);
  }
  toString = () =>
    `Bulk(${this.actorId}, [${this.targets.join(',')}], ${this.setting}=${this.value}, skip=${this.skip})`;
}

const anyValue = (k: Tracked): fc.Arbitrary<unknown> =>
  k === 'color_scheme'
    ? fc.integer({ min: 0, max: 4 })
    : k === 'emojiset'
      ? fc.constantFrom('google', 'twitter', 'text', 'bogus')
      : fc.oneof({ arbitrary: fc.boolean(), weight: 5 }, { arbitrary: fc.constant(1), weight: 1 });
const changes = fc
  .uniqueArray(fc.constantFrom(...TRACKED), { minLength: 0, maxLength: 2 })
  .chain((keys) => fc.tuple(...keys.map((k) => anyValue(k).map((v) => [k, v] as const))))
  .map((pairs) => Object.fromEntries(pairs) as Partial<Record<Tracked, unknown>>);

const commands = [
  fc
    .tuple(
      fc.constantFrom(...USERS),
      changes,
      fc.option(fc.constantFrom('Ophelia', '  Horatio  ', '', '   ', 'x'.repeat(101), 'King Hamlet'), {
        nil: undefined,
      }),
    )
    .filter(([, c, n]) => Object.keys(c).length > 0 || n !== undefined)
    .map(([u, c, n]) => new Own(u, c, n)),
  fc
    .tuple(
      fc.constantFrom(cast.desdemona, cast.iago, cast.hamlet, cast.defaultBot),
      fc.uniqueArray(fc.constantFrom(...USERS), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...BOOLS),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([a, t, s, v, k]) => new Bulk(a, t, s, v, k)),
];

describe('model: settings', () => {
  it('own changes and bulk edits follow the model, all or nothing', () => {
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 25 }), (cmds) => {
        fc.modelRun(() => ({ model: modelOf(initial), real: { state: initial } }), cmds);
      }),
      fcParams(100),
    );
  });
});
