/**
 * `chat-realm/testing`: what a host's own tests need — realm builders, a session helper, event
 * assertions, and (with fast-check installed) arbitraries. See README "Testing with chat-realm".
 */
export { RealmBuilder, realmBuilder } from './builder';
export { Session, actAs, eventsFor, assertEvent } from './act';
export { seededRandom } from '../core/context';
