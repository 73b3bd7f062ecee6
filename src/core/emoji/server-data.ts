import { unicodeEmoji } from './unicode';

let text: string | undefined;

/**
 * The JSON served at register's `server_emoji_data_url` (Zulip's generated `emoji_api.json`):
 * `{"code_to_names": {code: [canonical name, ...aliases]}}` for the Unicode emoji. Clients
 * (zulip-flutter's `ServerEmojiData`) add the realm's custom emoji and `zulip` themselves.
 */
export function serverEmojiDataJson(): string {
  text ??= JSON.stringify({ code_to_names: Object.fromEntries(unicodeEmoji().codeToNames) });
  return text;
}
