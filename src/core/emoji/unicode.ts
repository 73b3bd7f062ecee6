import { UNICODE_EMOJI } from './unicode-data';

/**
 * The Unicode emoji names and codes (Zulip's `name_to_codepoint` / `codepoint_to_name`), built
 * from the generated table on first use so that operations which never look an emoji up do not
 * pay for parsing it.
 */
export interface UnicodeEmojiTable {
  /** Every name (canonical and aliases) → emoji code. */
  readonly nameToCode: ReadonlyMap<string, string>;
  /** Emoji code → its names, the canonical name first. */
  readonly codeToNames: ReadonlyMap<string, readonly string[]>;
}

let table: UnicodeEmojiTable | undefined;

export function unicodeEmoji(): UnicodeEmojiTable {
  if (table !== undefined) return table;
  const nameToCode = new Map<string, string>();
  const codeToNames = new Map<string, readonly string[]>();
  for (const entry of UNICODE_EMOJI.split(';')) {
    const colon = entry.indexOf(':');
    const code = entry.slice(0, colon);
    const names = entry.slice(colon + 1).split(',');
    codeToNames.set(code, names);
    for (const name of names) nameToCode.set(name, code);
  }
  table = { nameToCode, codeToNames };
  return table;
}
