import { ChatRealmError } from '../branded-error';
/** Problems found in a snapshot, each with its JSON path. */
export interface SnapshotIssue {
  readonly path: string;
  readonly message: string;
}

/**
 * Thrown by `createRealm` (and returned by `parseRealm`) for an invalid snapshot; `issues` lists
 * every problem found, each with its JSON path, so a host can report them all at once.
 *
 * @example
 * ```ts
 * const fromFile: unknown = JSON.parse('{"format":"chat-realm.snapshot/1","users":[{"user_id":1}]}');
 * const parsed = parseRealm(fromFile);
 * expect(parsed.ok).toBe(false);
 * if (!parsed.ok) {
 *   expect(parsed.error).toBeInstanceOf(SnapshotError);
 *   expect(parsed.error.issues.map((i) => i.path)).toContain('users[0].email');
 * }
 * ```
 */
export class SnapshotError extends ChatRealmError {
  static override readonly brand = 'SnapshotError';
  readonly issues: readonly SnapshotIssue[];
  constructor(issues: readonly SnapshotIssue[]) {
    const shown = issues.slice(0, 20).map((i) => `${i.path}: ${i.message}`);
    const more = issues.length > 20 ? [`… and ${issues.length - 20} more`] : [];
    super(
      `Invalid realm snapshot (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${[...shown, ...more].join('\n')}`,
    );
    this.name = 'SnapshotError';
    this.issues = issues;
  }
}

/** `users[3].email`, `messages[0].flags["12"]`. */
export function pathString(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(String(p))) out += out === '' ? String(p) : `.${String(p)}`;
    else out += `[${JSON.stringify(String(p))}]`;
  }
  return out === '' ? '(root)' : out;
}

export class IssueList {
  readonly items: SnapshotIssue[] = [];
  add(path: readonly PropertyKey[], message: string): void {
    this.items.push({ path: pathString(path), message });
  }
}
