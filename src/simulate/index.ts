/** Deterministic generation of realistic organizations (core-pure: seeded PRNG, no I/O). */
export { simulateRealm, PRESETS, HEAVY_USER_ID, type SimulateOptions, type Preset } from './simulate';
export { snapshotText } from './snapshot-text';
export { simulateTraffic, applyTraffic, type TrafficOptions, type TrafficCall } from './traffic';
export { Prng } from './prng';
