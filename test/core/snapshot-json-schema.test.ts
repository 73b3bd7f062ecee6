import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import { snapshotJsonSchema } from '../../src/core/snapshot/json-schema';
import { snapshotRealm } from '../../src/core/snapshot/export';
import { devRealm, devSnapshot } from '../support/realm';

const shipped = JSON.parse(
  readFileSync(new URL('../../schema/realm-snapshot.schema.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

describe('the shipped JSON Schema of the snapshot format', () => {
  it('is current (regenerate with npx tsx scripts/snapshot-schema.ts)', () => {
    expect(shipped).toEqual(JSON.parse(JSON.stringify(snapshotJsonSchema())));
  });

  it('accepts the fixture and a canonical snapshot, refuses a wrong format', () => {
    const validate = new Ajv2020({ strict: false }).compile(shipped);
    expect(validate(devSnapshot()), JSON.stringify(validate.errors)).toBe(true);
    expect(
      validate(JSON.parse(JSON.stringify(snapshotRealm(devRealm())))),
      JSON.stringify(validate.errors),
    ).toBe(true);
    expect(validate({ ...devSnapshot(), format: 'other' })).toBe(false);
  });
});
