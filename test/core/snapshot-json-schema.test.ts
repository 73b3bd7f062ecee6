import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { snapshotJsonSchema } from '../../src/core/snapshot/json-schema';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { simulateRealm } from '../../src/simulate';
import { arbSnapshot } from '../support/arbitraries';
import { devRealm, devSnapshot, looseDevSnapshot, realmFromUnknown } from '../support/realm';

const shipped = JSON.parse(
  readFileSync(new URL('../../schema/realm-snapshot.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats(ajv);
const validate = ajv.compile(shipped);
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v));
const errorsOf = (v: unknown) => (validate(v) ? [] : (validate.errors ?? []).map((e) => e.instancePath));

describe('the shipped JSON Schema of the snapshot format', () => {
  it('is current (regenerate with npx tsx scripts/snapshot-schema.ts)', () => {
    expect(shipped).toEqual(plain(snapshotJsonSchema()));
  });

  it('describes every section and the messages in full (no bare arrays or open objects)', () => {
    const text = JSON.stringify(shipped);
    // Every array says what its items are; every object lists its properties or a record's values.
    const walk = (node: unknown, at: string): void => {
      if (typeof node !== 'object' || node === null) return;
      const n = node as Record<string, unknown>;
      if (n['type'] === 'array') expect(n['items'], `${at}: an array without items`).toBeDefined();
      if (n['type'] === 'object')
        expect(
          n['properties'] !== undefined || typeof n['additionalProperties'] === 'object',
          `${at}: an object without properties`,
        ).toBe(true);
      for (const [k, v] of Object.entries(n)) walk(v, `${at}/${k}`);
    };
    walk(shipped, '#');
    expect(text).toContain('"ChannelMessage"');
    expect(text).toContain('"DirectMessage"');
    expect(text).toContain('"stream_wildcard_mentioned"');
  });

  it('accepts the fixture, canonical snapshots and simulated organizations', () => {
    expect(errorsOf(devSnapshot())).toEqual([]);
    expect(errorsOf(plain(snapshotRealm(devRealm())))).toEqual([]);
    expect(errorsOf(plain(snapshotRealm(simulateRealm({ preset: 'small', seed: 4 }))))).toEqual([]);
  });

  it('accepts every snapshot the arbitraries generate (property)', () => {
    fc.assert(
      fc.property(arbSnapshot(), (s) => {
        expect(errorsOf(plain(s))).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses what createRealm refuses for its shape, at the same place', () => {
    const cases: Array<[string, (s: ReturnType<typeof looseDevSnapshot>) => void, string]> = [
      ['a wrong format', (s) => Object.assign(s, { format: 'other' }), '/format'],
      ['a misspelled section', (s) => (s['chanels'] = []), ''],
      ['a misspelled user field', (s) => (s['users']![0]!['fullname'] = 'x'), '/users/0'],
      ['a role that does not exist', (s) => (s['users']![0]!['role'] = 250), '/users/0/role'],
      [
        'an unknown system group',
        (s) => (s['channels']![0]!['can_send_message_group'] = 'role:member'),
        '/channels/0/can_send_message_group',
      ],
      ['a message with stream_id and to', (s) => (s['messages']![0]!['to'] = [4]), '/messages/0'],
      ['an unknown flag', (s) => (s['messages']![0]!['flags'] = { '4': ['shiny'] }), '/messages/0'],
      [
        'a flags key that is no user id',
        (s) => (s['messages']![0]!['flags'] = { hamlet: [] }),
        '/messages/0',
      ],
      [
        'a reaction with an unknown field',
        (s) =>
          (s['messages']![0]!['reactions'] = [
            { user_id: 4, emoji_name: 'a', emoji_code: '1', reaction_type: 'unicode_emoji', x: 1 },
          ]),
        '/messages/0',
      ],
      ['a string id', (s) => (s['messages']![0]!['id'] = '7'), '/messages/0'],
    ];
    for (const [what, mutate, path] of cases) {
      const s = looseDevSnapshot();
      mutate(s);
      const paths = errorsOf(s);
      expect(paths.length, what).toBeGreaterThan(0);
      expect(
        paths.some((p) => p.startsWith(path)),
        `${what}: ${paths.join(', ')}`,
      ).toBe(true);
      expect(() => realmFromUnknown(s), what).toThrow(/Invalid realm snapshot/);
    }
  });
});
