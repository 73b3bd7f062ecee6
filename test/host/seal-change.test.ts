/**
 * `sealChange` writes most changes by splicing the change's own JSON after `format`; these pin
 * that the record is byte for byte the generic one (`format`, the fields in order, `passwords`
 * last and only when there are some), whichever fields a change has.
 */
import { describe, expect, it } from 'vitest';
import { checksum } from '../../src/host/checksum';
import { sealChange, type Change } from '../../src/host/change';

/** The record as the generic path writes it. */
function generic(change: Change): string {
  const { passwords, ...rest } = change;
  const tagged = change.requestId !== undefined || change.answer !== undefined;
  return JSON.stringify({
    format: tagged ? 4 : 3,
    ...rest,
    ...(passwords && passwords.length > 0 ? { passwords } : {}),
  });
}

const request = {
  kind: 'request',
  actor: { userId: 4 },
  method: 'POST',
  url: '/api/v1/messages',
  body: { type: 'stream', to: '2', topic: 'bench', content: 'hello "quoted" ☃' },
} as const;

const changes: readonly Change[] = [
  { version: 7, input: request, now: 1_700_000_000, random: '', status: 200 },
  {
    version: 8,
    input: { kind: 'call', op: 'x', actor: { anonymous: true }, params: { a: [1, null] } },
    now: 1,
    random: 'AAEC',
    status: 400,
  },
  {
    version: 9,
    input: request,
    now: 2,
    random: '',
    deleteTopic: { batchSize: 100, maxBatches: null },
    redacted: true,
    status: 200,
  },
  {
    version: 10,
    input: request,
    now: 3,
    random: '',
    status: 200,
    requestId: 'r-1',
    answer: { result: 'success', id: 3 },
  },
  { version: 11, input: request, now: 4, random: '', status: 200, requestId: 'r-2' },
  {
    version: 12,
    input: request,
    now: 5,
    random: 'AA',
    passwords: [{ hash: 'h' }, { verify: true }],
    status: 200,
  },
  { version: 13, input: request, now: 6, random: '', passwords: [], status: 200 },
];

describe('sealChange', () => {
  it.each(changes.map((c) => [c.version, c] as const))(
    'writes change %i as the generic record',
    (_v, change) => {
      const sealed = sealChange(change, 12345);
      expect(sealed.payload).toBe(generic(change));
      expect(sealed.checksum).toBe(checksum(sealed.payload, 12345));
      expect(sealed.version).toBe(change.version);
    },
  );
});
