/**
 * MD5 over UTF-8, from @noble/hashes (faster here than the hand-written one it replaced; see
 * bench/README.md). Not for security: Gravatar addresses avatars by the MD5 of the lower-cased
 * email, so building Zulip's avatar URLs needs it.
 */
import { md5 } from '@noble/hashes/legacy';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';

export function md5Hex(text: string): string {
  return bytesToHex(md5(utf8ToBytes(text)));
}
