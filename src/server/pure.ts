import type { OpContext } from '../core/context';
import type { OpResult } from '../core/result';
import type { RealmState } from '../core/state';
import { handleApiRequest, type ApiRequest } from '../wire/handle';
import type { RequestHandler } from './types';

/**
 * A `RequestHandler` over a realm held in memory, without persistence or subscribers: each
 * request runs `handleApiRequest` on the current state and keeps the state it returns. For
 * tests and throwaway servers; a realm handle (`openRealm`) is what persists changes.
 * `ctx` gives each request its context; by default the system clock and Web Crypto.
 */
export function pureRealm(
  initial: RealmState,
  ctx: () => OpContext = () => ({ now: Math.floor(Date.now() / 1000) }),
): RequestHandler & { readonly state: RealmState } {
  let state = initial;
  return {
    get state() {
      return state;
    },
    request(request: ApiRequest): OpResult {
      const result = handleApiRequest(state, request, ctx());
      state = result.state;
      return result;
    },
  };
}
