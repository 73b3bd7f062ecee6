import type { SystemGroupName } from '../model/group-setting';
import { SYSTEM_GROUP_RANK, systemGroupRank } from '../permissions/roles';
import type { RealmState } from '../state';
import { groupForApi } from './group-dict';

/**
 * Zulip's `user_groups_in_realm_serialized`: groups by id, deactivated ones only with the
 * capability; a system group's members are the active users whose role puts them directly in it.
 * Each dict is the `user_group/add` event's (`groupForApi`); a system group's members are computed
 * once per rank here and passed in (its stored members would be filtered only to be replaced).
 */
export function userGroups(
  state: RealmState,
  includeDeactivated: boolean,
): ReadonlyArray<Readonly<Record<string, unknown>>> {
  let entry = answers.get(state.groups);
  if (entry === undefined || entry.users !== state.users) {
    entry = { users: state.users, lists: [undefined, undefined] };
    answers.set(state.groups, entry);
  }
  const k = includeDeactivated ? 1 : 0;
  return (entry.lists[k] ??= deepFreeze(buildUserGroups(state, includeDeactivated)));
}

/**
 * The answer by groups collection, while the users are the same: it depends on nothing else (not
 * on the viewer), so every register of an organization whose groups and users did not change
 * lists the same frozen dicts. Weak: a replaced collection's answers go with it.
 */
const answers = new WeakMap<
  RealmState['groups'],
  {
    readonly users: RealmState['users'];
    readonly lists: Array<ReadonlyArray<Readonly<Record<string, unknown>>> | undefined>;
  }
>();

/** Freezes a JSON-like value and everything in it (shared answers stay as built). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

function buildUserGroups(state: RealmState, includeDeactivated: boolean): Array<Record<string, unknown>> {
  const byRank = new Map<number, number[]>();
  state.users.forEachValue((u) => {
    if (!u.is_active) return;
    const r = systemGroupRank(u);
    let list = byRank.get(r);
    if (list === undefined) byRank.set(r, (list = []));
    list.push(u.user_id);
  });
  const out: Array<Record<string, unknown>> = [];
  for (const g of state.groups.values()) {
    if (g.deactivated && !includeDeactivated) continue;
    out.push(
      groupForApi(
        state,
        g,
        g.is_system_group ? (byRank.get(SYSTEM_GROUP_RANK[g.name as SystemGroupName]) ?? []) : undefined,
      ),
    );
  }
  return out;
}
