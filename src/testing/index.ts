/**
 * `chat-realm/testing`: what a host's own tests need — a realm builder, the realistic organization
 * simulator, a session helper, event and result assertions. fast-check arbitraries are in
 * `chat-realm/testing/arbitraries` (fast-check is an optional peer dependency). See docs/testing.md.
 */
export { RealmBuilder, realmBuilder } from './builder';
export { Session, actAs, eventsFor, assertEvent, assertSuccess } from './act';
export { simulateRealm, HEAVY_USER_ID, type SimulateOptions, type Preset } from '../simulate/simulate';
export { simulateTraffic, applyTraffic, type TrafficOptions, type TrafficCall } from '../simulate/traffic';
export { seededRandom } from '../core/context';
