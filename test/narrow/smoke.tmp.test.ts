import { it } from 'vitest';
import { devRealm, as, testCtx, wire } from '../support/realm';
import { updateMessageFlagsForNarrow } from '../../src/ops/messages/updateMessageFlagsForNarrow';
it('smoke', () => {
  const s = devRealm();
  const r = updateMessageFlagsForNarrow(s, as('hamlet'), { anchor: 'oldest', flag: 'read', narrow: [{operator:'is',operand:'unread'}], num_before: 0, num_after: 100, op: 'add' }, testCtx());
  console.log(JSON.stringify(r.body), JSON.stringify(r.events));
  const r2 = wire(s, 'hamlet', 'POST', '/messages/flags/narrow', { anchor: 'newest', flag: 'read', narrow: '[["channel","Denmark"]]', num_before: '3', num_after: '0', op: 'remove' });
  console.log(JSON.stringify(r2.body), JSON.stringify(r2.events));
});
