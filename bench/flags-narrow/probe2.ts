import { simulateRealm, HEAVY_USER_ID } from '../../src/simulate/simulate';
import { runOurs, term, NO_FILTER, type Scenario } from './scenarios';
const st = simulateRealm({ preset: 'large', seed: 1, dmRatio: 0 });
const heavy = HEAVY_USER_ID;
const markAll: Scenario = {
  name: 'x',
  userId: heavy,
  narrow: [term('is', 'unread')],
  anchor: 'oldest',
  numBefore: 0,
  numAfter: 5000,
  includeAnchor: true,
  flag: 'read',
  op: 'add',
  filter: NO_FILTER,
};
const loop = () => {
  let state = st;
  let anchor: Scenario['anchor'] = 'oldest';
  let n = 0;
  for (;;) {
    const r = runOurs(state, { ...markAll, anchor, includeAnchor: anchor === 'oldest' });
    state = r.state;
    n++;
    if (r.body['found_newest'] === true) break;
    anchor = Number(r.body['last_processed_id']);
  }
  return n;
};
for (let i = 0; i < 5; i++) loop();
const t = performance.now();
const c = process.cpuUsage();
for (let i = 0; i < 20; i++) loop();
const cu = process.cpuUsage(c);
console.log(
  'chain ms',
  ((performance.now() - t) / 20).toFixed(1),
  'cpu',
  ((cu.user + cu.system) / 1000 / 20).toFixed(1),
);
