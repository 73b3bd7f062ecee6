import type { GroupSettingValue, SystemGroupName } from '../model/group-setting';
import type { SettingRule } from '../permissions/setting-rules';
import type { IssueList } from './issues';
import type { GroupSettingInput } from './schema';

export type Path = readonly PropertyKey[];

/**
 * What the section loaders share while a snapshot is read: the issue list and the ids known so far,
 * so every reference can be checked (and reported with its path) before anything is built.
 */
export class Loader {
  constructor(
    readonly issues: IssueList,
    readonly userIds: ReadonlySet<number>,
    readonly groupIds: ReadonlySet<number>,
    readonly channelIds: ReadonlySet<number>,
    readonly folderIds: ReadonlySet<number>,
    readonly systemIds: Readonly<Record<SystemGroupName, number>>,
  ) {}

  needUser(path: Path, id: number | null | undefined): void {
    if (id !== null && id !== undefined && !this.userIds.has(id)) this.issues.add(path, `no user ${id}`);
  }

  needChannel(path: Path, id: number): void {
    if (!this.channelIds.has(id)) this.issues.add(path, `no channel ${id}`);
  }

  needGroup(path: Path, id: number): void {
    if (!this.groupIds.has(id)) this.issues.add(path, `no group ${id}`);
  }

  /** A group-setting value of the snapshot (id, system group name, or anonymous group) in stored form. */
  setting(path: Path, input: GroupSettingInput | undefined, fallback: GroupSettingValue): GroupSettingValue {
    if (input === undefined) return fallback;
    // A name: the schema admits system group names only.
    if (typeof input === 'string') return this.systemIds[input];
    if (typeof input === 'number') {
      this.needGroup(path, input);
      return input;
    }
    input.direct_members.forEach((m, j) => this.needUser([...path, 'direct_members', j], m));
    input.direct_subgroups.forEach((g, j) => this.needGroup([...path, 'direct_subgroups', j], g));
    return {
      direct_members: sortedUnique(input.direct_members),
      direct_subgroups: sortedUnique(input.direct_subgroups),
    };
  }

  /** The value a new object gets for a setting: a system group, or an anonymous group of its creator. */
  defaultSetting(rule: SettingRule, creator: number | null | undefined): GroupSettingValue {
    if (rule.default !== 'creator') return this.systemIds[rule.default];
    return creator ? { direct_members: [creator], direct_subgroups: [] } : this.systemIds['role:nobody'];
  }
}

/** Reports repeated ids of a list and returns the set of ids. */
export function uniqueIds<T>(
  list: readonly T[],
  idOf: (x: T) => number,
  name: string,
  field: string,
  issues: IssueList,
): Set<number> {
  const seen = new Set<number>();
  list.forEach((x, i) => {
    const id = idOf(x);
    if (seen.has(id)) issues.add([name, i, field], `duplicate ${field} ${id}`);
    seen.add(id);
  });
  return seen;
}

/** Reports repeated keys (names, emails, pairs) of a list. */
export function uniqueKeys<T>(
  list: readonly T[],
  keyOf: (x: T) => string,
  name: string,
  field: string,
  issues: IssueList,
): void {
  const seen = new Set<string>();
  list.forEach((x, i) => {
    const key = keyOf(x);
    if (seen.has(key)) issues.add([name, i, field], `duplicate ${field} ${JSON.stringify(key)}`);
    seen.add(key);
  });
}

export function sortedUnique(ids: readonly number[]): number[] {
  return [...new Set(ids)].sort((a, b) => a - b);
}
