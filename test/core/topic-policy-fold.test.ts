import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { topicPolicy } from '../../src/core/messages/auto-follow';
import type { RealmState } from '../../src/core/state';

/** A state whose only part `topicPolicy` reads: one user's topic rows in channel 1. */
function withRows(names: readonly string[]): RealmState {
  const rows = names.map((topic_name, i) => ({ stream_id: 1, topic_name, visibility_policy: (i % 3) + 1 }));
  return { userTopics: { get: () => rows } } as unknown as RealmState;
}

// ASCII letters and punctuation next to letters' case boundaries, and characters whose lower case
// differs in length or is ASCII (İ, the Kelvin sign), or depends on its place (Σ).
const chars = [
  'a',
  'A',
  'z',
  'Z',
  '@',
  '[',
  '`',
  '{',
  ' ',
  '1',
  'İ',
  'i',
  'I',
  'K',
  'k',
  'Σ',
  'σ',
  'ς',
  'ß',
  'é',
  'É',
];
const topic = fc.array(fc.constantFrom(...chars), { maxLength: 5 }).map((cs) => cs.join(''));

describe('topicPolicy matches topics as their lower case does', () => {
  it('finds the first row whose lower-cased topic is the lower-cased topic', () => {
    fc.assert(
      fc.property(fc.array(topic, { maxLength: 4 }), topic, fc.boolean(), (names, asked, upper) => {
        const t = upper ? asked.toUpperCase() : asked;
        const k = names.findIndex((n) => n.toLowerCase() === t.toLowerCase());
        expect(topicPolicy(withRows(names), 7, 1, t)).toBe(k < 0 ? 0 : (k % 3) + 1);
      }),
      { numRuns: 3000 },
    );
  });

  it('reads the Kelvin sign and dotted capital I as their lower case does', () => {
    expect(topicPolicy(withRows(['\u212a']), 7, 1, 'k')).toBe(1);
    expect(topicPolicy(withRows(['\u0130x']), 7, 1, 'i\u0307x')).toBe(1);
    expect(topicPolicy(withRows(['lunch 1', 'Lunch 2']), 7, 1, 'LUNCH 2')).toBe(2);
  });
});
