import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emojiModuleText } from '../../scripts/emoji-data';
import { unicodeEmoji } from '../../src/core/emoji/unicode';

/**
 * The committed emoji table is what scripts/emoji-data.ts makes from the installed emojibase-data
 * (regenerate with `npx tsx scripts/emoji-data.ts`), and it answers the names clients rely on.
 */
describe('Unicode emoji table', () => {
  it('is the generator’s output for the installed package', () => {
    const committed = readFileSync(new URL('../../src/core/emoji/unicode-data.ts', import.meta.url), 'utf8');
    expect(committed).toBe(emojiModuleText());
  });

  it('has Zulip’s codes (unqualified, lower case) and the names clients send', () => {
    const { nameToCode, codeToNames } = unicodeEmoji();
    expect(nameToCode.get('+1')).toBe('1f44d');
    expect(nameToCode.get('thumbs_up')).toBe('1f44d');
    expect(codeToNames.get('1f44d')![0]).toBe('+1');
    expect(nameToCode.get('octopus')).toBe('1f419');
    expect(nameToCode.get('heart')).toBe('2764');
    expect(nameToCode.get('tada')).toBe('1f389');
    // No code keeps the U+FE0F variation selector.
    for (const code of codeToNames.keys()) expect(code).not.toMatch(/fe0f/);
    // Every name maps back to a code that lists it.
    for (const [name, code] of nameToCode) expect(codeToNames.get(code)).toContain(name);
  });
});
