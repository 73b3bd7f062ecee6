import { zulipError, type ZulipError } from '../errors';
import type { Reaction } from '../model/records';
import type { RealmState } from '../state';
import { activeRealmEmojiNamed } from './realm-emoji';
import { unicodeEmoji } from './unicode';

/**
 * Zulip's emoji checks (zerver/lib/emoji.py), shared by reactions and user status: the lookup of
 * an emoji by name, and the refusal of a (name, code, type) triple.
 */

type ReactionType = Reaction['reaction_type'];

/** Zulip's `get_emoji_data`: the code and type of an emoji named `name`, or its error. */
export function emojiByName(
  state: RealmState,
  name: string,
): { emoji_code: string; reaction_type: ReactionType } | ZulipError {
  // An active custom emoji wins over the extra and Unicode emoji of the same name.
  const custom = activeRealmEmojiNamed(state, name);
  if (custom !== undefined) return { emoji_code: String(custom.id), reaction_type: 'realm_emoji' };
  if (name === 'zulip') return { emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' };
  const code = unicodeEmoji().nameToCode.get(name);
  if (code !== undefined) return { emoji_code: code, reaction_type: 'unicode_emoji' };
  return zulipError(`Emoji '${name}' does not exist`);
}

/** Zulip's `check_emoji_request`: the refusal of a new reaction, if any, in Zulip's order. */
export function emojiRefusal(
  state: RealmState,
  name: string,
  code: string,
  type: string,
): string | undefined {
  switch (type) {
    case 'realm_emoji': {
      // Codes are ids as strings: "01" or " 1" name no emoji.
      const custom = /^[1-9][0-9]{0,9}$/.test(code) ? state.realmEmoji.get(Number(code)) : undefined;
      if (custom === undefined) return 'Invalid custom emoji.';
      if (custom.name !== name) return 'Invalid custom emoji name.';
      return custom.deactivated ? 'This custom emoji has been deactivated.' : undefined;
    }
    case 'zulip_extra_emoji':
      if (code !== 'zulip') return 'Invalid emoji code.';
      return name !== code ? 'Invalid emoji name.' : undefined;
    case 'unicode_emoji': {
      const table = unicodeEmoji();
      if (!table.codeToNames.has(code)) return 'Invalid emoji code.';
      return table.nameToCode.get(name) !== code ? 'Invalid emoji name.' : undefined;
    }
    default:
      return 'Invalid emoji type.';
  }
}
