import { it } from 'vitest';
import { devRealm, testCtx } from '../support/realm';
import { applyEvents } from './client/reducer';
import { viewOf } from './client/view';
import * as ops from '../../src/ops/index';
function diff(a: any, b: any, path = ''): string[] {
  if (JSON.stringify(a) === JSON.stringify(b)) return [];
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return [`${path}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => diff(a[k], b[k], `${path}.${k}`));
}
it('debug', () => {
  const [name, userId, params] = JSON.parse(process.env['CALL']!);
  const state = devRealm();
  const r = (ops as any)[name](state, { userId }, params, testCtx());
  console.log(JSON.stringify(r.body));
  for (const e of r.events) console.log(JSON.stringify(e).slice(0, 400));
  for (const u of state.users.values()) { if (!u.is_active) continue;
    const mine = r.events.filter((e: any) => e.users.includes(u.user_id)).map((e: any) => e.event);
    const d = diff(applyEvents(viewOf(state, u.user_id), mine), viewOf(r.state, u.user_id));
    if (d.length) console.log(u.user_id, d.slice(0, 6));
  }
});
