import { errors, type ZulipError } from '../errors';
import type { UserStatus } from '../model/records';
import type { RealmState } from '../state';

type ReactionType = UserStatus['reaction_type'];

/** A Unicode emoji code as Zulip writes it: lower-case hex code points joined by `-`. */
const UNICODE_CODE = /^[0-9a-f]{1,6}(?:-[0-9a-f]{1,6})*$/;

/**
 * TO WIRE: the emoji check of POST /users/me/status (Zulip's `emoji_name_to_emoji_code` when the
 * code or type is missing, then `check_emoji_request`). The engine has no Unicode emoji table
 * yet, so this checks what it can structurally; after the emoji data module (reactions) is
 * merged, replace the marked branches with lookups in its name/code table and realm emoji.
 *
 * Returns the emoji triple to store, or Zulip's error.
 */
export function checkStatusEmoji(
  _state: RealmState,
  name: string,
  code: string | undefined,
  type: string | undefined,
): { emoji_name: string; emoji_code: string; reaction_type: ReactionType } | ZulipError {
  if (code === undefined || type === undefined) {
    // emoji_name_to_emoji_code: realm emoji by name (none held yet), `zulip`, then Unicode names.
    if (name === 'zulip')
      return { emoji_name: name, emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' };
    // TO WIRE: look the name up in the Unicode emoji table (name_to_codepoint).
    return errors.badRequest(`Emoji '${name}' does not exist`);
  }
  switch (type) {
    case 'realm_emoji':
      // TO WIRE: the realm's emoji by id (`Invalid custom emoji.`, `Invalid custom emoji name.`).
      return errors.badRequest('Invalid custom emoji.');
    case 'zulip_extra_emoji':
      if (code !== 'zulip') return errors.badRequest('Invalid emoji code.');
      if (name !== code) return errors.badRequest('Invalid emoji name.');
      return { emoji_name: name, emoji_code: code, reaction_type: type };
    case 'unicode_emoji':
      // TO WIRE: `code in codepoint_to_name`, then `name_to_codepoint[name] === code`.
      if (!UNICODE_CODE.test(code)) return errors.badRequest('Invalid emoji code.');
      if (!/^[a-z0-9_+-]+$/.test(name)) return errors.badRequest('Invalid emoji name.');
      return { emoji_name: name, emoji_code: code, reaction_type: type };
    default:
      return errors.badRequest('Invalid emoji type.');
  }
}
