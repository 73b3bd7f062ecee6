/**
 * The requests an event-queue host answers outside the realm handle (live-realm.ts): they never
 * change the realm, and their events must reach the queues although no change is persisted.
 */
const EPHEMERAL: ReadonlyArray<readonly [method: string, pattern: RegExp]> = [
  ['POST', /^\/api\/v1\/users\/me\/presence$/],
  ['GET', /^\/api\/v1\/realm\/presence$/],
  ['GET', /^\/api\/v1\/users\/(?!me\/)[^/]+\/presence$/],
  ['POST', /^\/api\/v1\/typing$/],
];

export function isEphemeralRoute(method: string, path: string): boolean {
  return EPHEMERAL.some(([m, p]) => m === method && p.test(path));
}
