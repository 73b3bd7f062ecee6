import { describe, expect, it } from 'vitest';
import { createRealm, parseRealm } from '../../src/core/snapshot/create';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { devSnapshot, looseDevSnapshot } from '../support/realm';

const base = looseDevSnapshot;

function problems(s: unknown): string[] {
  const parsed = parseRealm(s);
  return parsed.ok ? [] : parsed.error.issues.map((i) => `${i.path}: ${i.message}`);
}

/** A direct message from hamlet (4) to othello (6), the fixture's DM shape. */
const dm = (over: Record<string, unknown> = {}) => ({
  id: 9001,
  sender_id: 4,
  to: [6],
  content: 'hi',
  timestamp: 1735700000,
  ...over,
});

describe('createRealm refuses what JSON cannot hold, with paths', () => {
  it('a sparse `to` is refused, not read as a message to user 0 (issue 16 item 7)', () => {
    const s = base();
    // eslint-disable-next-line no-sparse-arrays
    s['messages']!.push(dm({ to: [6, , 8] }));
    const index = s['messages']!.length - 1;
    expect(problems(s)).toEqual([`messages[${index}].to[1]: a hole in a sparse array is not a JSON value`]);
  });

  it('holes in the message list and in flag lists', () => {
    const s = base();
    const n = s['messages']!.length;
    // eslint-disable-next-line no-sparse-arrays
    s['messages']![n + 1] = dm({ flags: { '4': ['read', , 'starred'], '6': [] } });
    expect(problems(s)).toEqual([
      `messages[${n}]: a hole in a sparse array is not a JSON value`,
      `messages[${n + 1}].flags["4"][1]: a hole in a sparse array is not a JSON value`,
    ]);
  });

  it('undefined in arrays, functions, NaN, Infinity, BigInt, Dates, class instances and cycles anywhere; undefined fields are left out', () => {
    class Profile {
      full_name = 'Hamlet';
    }
    const s = base();
    s['users']![0]!['full_name'] = undefined;
    s['users']![1]!['full_name'] = () => 'Iago';
    s['users']![2]!['date_joined'] = new Date(0);
    s['channels']![0]!['message_retention_days'] = Number.NaN;
    s['users']![4]!['avatar_version'] = -Infinity;
    s['users']![3]!['avatar_version'] = 1n;
    s['realm'] = Object.assign(new Profile(), s['realm']);
    const loop: Record<string, unknown> = { key: 'k', value: 'v', bot_id: 11 };
    loop['self'] = loop;
    s['bot_storage'] = [loop];
    s['messages']!.push(dm({ content: undefined }));
    const index = s['messages']!.length - 1;
    s['channels']![2]!['description'] = undefined; // left out: takes its default
    (s as Record<string, unknown>)['default_channel_ids'] = [1, undefined];
    expect(problems(s)).toEqual([
      `messages[${index}].content: expected a string`,
      'realm: a Profile is not a plain JSON object',
      'users[1].full_name: a function is not a JSON value',
      'users[2].date_joined: a Date is not a plain JSON object (write dates as numbers or strings)',
      'users[3].avatar_version: a BigInt is not a JSON value',
      'users[4].avatar_version: -Infinity is not a JSON number',
      'channels[0].message_retention_days: NaN is not a JSON number',
      'default_channel_ids[1]: undefined is not a JSON value',
      'bot_storage[0].self: a cycle (the value contains itself) is not JSON',
      'users[0].full_name: Invalid input: expected string, received undefined',
      'bot_storage[0]: Unrecognized key: "self"',
    ]);
  });

  it('a message that is a class instance, or holds one', () => {
    class Message {
      constructor(readonly id: number) {}
    }
    const s = base();
    s['messages']!.push(new Message(9002) as unknown as Record<string, unknown>);
    s['messages']!.push(dm({ id: 9003, reactions: [new Date(0)] }));
    const n = s['messages']!.length;
    expect(problems(s)).toEqual([
      `messages[${n - 2}]: a Message is not a plain JSON object`,
      `messages[${n - 1}].reactions[0]: expected {user_id, emoji_name, emoji_code, reaction_type}`,
    ]);
  });

  it('what loads is what the export writes back (plain JSON in, plain JSON out)', () => {
    const state = createRealm(devSnapshot());
    const out = snapshotRealm(state);
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });
});
