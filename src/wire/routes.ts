import type { DefinedOperation } from '../core/operation';
import { OPERATIONS } from '../ops/index';
import { LIVE_OPERATIONS } from '../ops/live/index';
import { PathMemo } from './path-memo';

/** A route: the operation, and the regex for its path under /api/v1 with named path params. */
export interface Route {
  readonly op: DefinedOperation;
  readonly pattern: RegExp;
}

function compile(path: string): RegExp {
  // Zulip's URL patterns take path ids as digits only: /streams/abc is a 404, not a 400. An
  // `…_or_email` segment takes anything but `me` (Zulip routes /users/me/… to its own views first);
  // GET /users/{email} takes any segment (listed after /users/{user_id}); an emoji name any rest.
  const source = path
    .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
    .replace(/\{(\w+_or_email)\}/g, '(?<$1>(?!me/)[^/]+)')
    .replace(/\{(\w+)\}/g, (_m, name: string) =>
      name === 'email'
        ? '(?<email>[^/]+)'
        : // Zulip's `realm/emoji/<path:emoji_name>`: the rest of the path, slashes included.
          name === 'emoji_name'
          ? '(?<emoji_name>.+)'
          : `(?<${name}>[0-9]+)`,
    );
  return new RegExp(`^${source}$`);
}

export const ROUTES: readonly Route[] = [...OPERATIONS, ...LIVE_OPERATIONS].map((op) => ({
  op,
  pattern: compile(op.def.path),
}));

export type RouteMatch =
  | { readonly kind: 'found'; readonly op: DefinedOperation; readonly pathParams: Record<string, string> }
  | { readonly kind: 'wrong_method'; readonly allowed: readonly string[] }
  | { readonly kind: 'not_found' };

/**
 * Matches by method and path, remembered: `ROUTES` never changes, so the match is a function of
 * the two strings, and clients call the same few paths again and again (scanning the routes' 69
 * patterns costs about a microsecond per request, a lookup a tenth of that). The remembered
 * matches are frozen, as every caller gets the same object. Bounded (paths with ids in them,
 * `/messages/17`, fill the memo, which then starts again; long paths are not kept at all).
 */
const matches = new PathMemo<RouteMatch>(findRoute);

/** Finds the operation for a method and a path below /api/v1 (e.g. `/streams/5`). */
export function matchRoute(method: string, path: string): RouteMatch {
  return matches.get(method, path);
}

function findRoute(method: string, path: string): RouteMatch {
  const allowed: string[] = [];
  for (const route of ROUTES) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    if (route.op.def.method === method)
      return Object.freeze({
        kind: 'found',
        op: route.op,
        pathParams: Object.freeze({ ...m.groups }),
      });
    allowed.push(route.op.def.method);
  }
  return allowed.length > 0
    ? Object.freeze({ kind: 'wrong_method', allowed: Object.freeze([...new Set(allowed)].sort()) })
    : NOT_FOUND;
}

const NOT_FOUND: RouteMatch = Object.freeze({ kind: 'not_found' });
