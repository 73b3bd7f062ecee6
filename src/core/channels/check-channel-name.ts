import { zulipError, type ZulipError } from '../errors';
import { codePointLength } from '../params';

/**
 * Zulip's `check_stream_name` for a name already stripped of surrounding whitespace: not empty, at
 * most `maxLength` code points, and no control character (Cc), surrogate (Cs) or Unicode
 * non-character. Positions are 1-based code-point positions, as Zulip reports them.
 */
export function checkChannelName(name: string, maxLength: number): ZulipError | undefined {
  if (name === '') return zulipError("Channel name can't be empty.");
  if (codePointLength(name) > maxLength)
    return zulipError(`Channel name too long (limit: ${maxLength} characters).`);
  const position = unprintablePosition(name);
  if (position !== undefined)
    return zulipError(`Invalid character in channel name, at position ${position}.`);
  return undefined;
}

/** 1-based position of the first Cc, Cs or non-character code point (Zulip's `check_string_is_printable`). */
export function unprintablePosition(s: string): number | undefined {
  let position = 0;
  for (const ch of s) {
    position++;
    const cp = ch.codePointAt(0)!;
    if (isControl(cp) || isSurrogate(cp) || isNonCharacter(cp)) return position;
  }
  return undefined;
}

const isControl = (cp: number): boolean => cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f);
const isSurrogate = (cp: number): boolean => cp >= 0xd800 && cp <= 0xdfff;
const isNonCharacter = (cp: number): boolean => (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
