import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PresenceTable } from '../../src/host/presence-table';

describe('PresenceTable', () => {
  it('valuesSince answers exactly the current rows changed after an id, whatever the history', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 300 }),
        fc.nat(400),
        (users, since) => {
          const table = new PresenceTable(0);
          for (const user_id of users) {
            const id = table.lastUpdateId + 1;
            table.apply([
              {
                type: 'update_presence',
                row: { user_id, last_active_time: id, last_connected_time: id, last_update_id: id },
              },
            ]);
          }
          const expected = [...table.values()].filter((r) => r.last_update_id > since);
          const got = [...table.valuesSince(since)];
          expect(got.sort((a, b) => a.user_id - b.user_id)).toEqual(
            expected.sort((a, b) => a.user_id - b.user_id),
          );
        },
      ),
    );
  });

  it('starts its sequence where told and ignores other effects', () => {
    const table = new PresenceTable(1000);
    table.apply([{ type: 'unregister_push_device', user_id: 1, kind: 'fcm', token: 't' }]);
    expect(table.lastUpdateId).toBe(1000);
    expect(table.size).toBe(0);
  });
});
