import type { User } from '../model/records';
import type { RealmState } from '../state';
import { foldFullName, userIdsByFoldedName } from '../indexes/user-indexes';

/**
 * The mentions of a message, as Zulip's Markdown processor finds them (`zerver/lib/mention.py`):
 * `@**Full Name**`, `@**Full Name|id**` (or `@**|id**`), `@*group name*`, the channel wildcards
 * `@**all**`, `@**everyone**`, `@**channel**`, `@**stream**` and the topic wildcard `@**topic**`.
 * Silent forms (`@_**…**`, `@_*…*`) mention nobody. Mention syntax inside code (fenced blocks and
 * inline code spans) is text, not a mention.
 *
 * Simplifications (docs/differences/messages.md): a full name shared by several active users
 * mentions nobody unless the id is given (Zulip does the same); names are matched
 * case-insensitively; the rendered HTML does not turn mentions into mention spans.
 */
export interface Mentions {
  /** Users mentioned by name or id (not silently), active users only. */
  readonly userIds: ReadonlySet<number>;
  /** Groups mentioned (not silently), in order of appearance. */
  readonly groupIds: readonly number[];
  readonly streamWildcard: boolean;
  readonly topicWildcard: boolean;
}

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel']);

/** Removes fenced code blocks and inline code spans (mention syntax there is plain text). */
function withoutCode(content: string): string {
  return content
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?(?:^\1[ \t]*$|(?![\s\S]))/gm, ' ')
    .replace(/`[^`\n]*`/g, ' ');
}

/** Active users with this full name (folded as Zulip's case-insensitive match), from the name index. */
function activeUsersNamed(state: RealmState, name: string): User[] {
  const out: User[] = [];
  for (const id of userIdsByFoldedName(state, foldFullName(name))) {
    const u = state.users.get(id);
    if (u?.is_active) out.push(u);
  }
  return out;
}

export function findMentions(state: RealmState, content: string): Mentions {
  const text = withoutCode(content);
  const userIds = new Set<number>();
  const groupIds: number[] = [];
  let streamWildcard = false;
  let topicWildcard = false;
  for (const m of text.matchAll(/@(_?)\*\*([^*]+)\*\*/g)) {
    if (m[1] === '_') continue;
    const name = m[2]!;
    if (STREAM_WILDCARDS.has(name)) {
      streamWildcard = true;
      continue;
    }
    if (name === 'topic') {
      topicWildcard = true;
      continue;
    }
    const bar = name.lastIndexOf('|');
    if (bar >= 0) {
      const id = Number(name.slice(bar + 1));
      const user = Number.isSafeInteger(id) ? state.users.get(id) : undefined;
      const given = name.slice(0, bar);
      if (user?.is_active && (given === '' || foldFullName(given) === foldFullName(user.full_name)))
        userIds.add(user.user_id);
      continue;
    }
    const matches = activeUsersNamed(state, name);
    if (matches.length === 1) userIds.add(matches[0]!.user_id);
  }
  // Group mentions: one star on each side, not part of a user mention's double stars.
  for (const m of text.matchAll(/@(_?)\*(?!\*)([^*]+)\*(?!\*)/g)) {
    if (m[1] === '_') continue;
    const id = state.groupsByName.get(m[2]!);
    const group = id === undefined ? undefined : state.groups.get(id);
    if (group === undefined || group.deactivated || groupIds.includes(group.id)) continue;
    groupIds.push(group.id);
  }
  return { userIds, groupIds, streamWildcard, topicWildcard };
}

/** Whether the content could hold a mention at all (the common case skips the parser). */
export function mayMention(content: string): boolean {
  return content.includes('@');
}
