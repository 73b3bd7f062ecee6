/**
 * Checks on what a handle loads and stores: the loaded log must end at the store's head record,
 * and one stored change has a size bound.
 */
import { ChangeTooLargeError, CorruptStoreError } from './errors';
import type { SealedChange, StoredRealm } from './store';

/** The default `maxChangeBytes`: the Node server's default body limit. */
export const DEFAULT_MAX_CHANGE_BYTES = 1 << 20;

/**
 * The loaded log (ending at `version`, whose checksum is `chain`) must end where the store's own
 * head record says its last append is: a log that lost changes at its end is refused.
 */
export function checkHead(describe: string, stored: StoredRealm, version: number, chain: number): void {
  const head = stored.head;
  if (head === undefined) return; // a store that keeps no head record
  if (head === null) {
    if (stored.changes.length > 0)
      throw new CorruptStoreError(
        describe,
        `the head record is missing (changes up to ${version} are stored)`,
      );
    return;
  }
  if (head.version > version) {
    throw new CorruptStoreError(
      `${describe}, change ${version + 1}`,
      `the change log ends at change ${version}, but the store's head is change ${head.version} (changes ${version + 1}–${head.version} are missing)`,
    );
  }
  if (head.version < version) {
    throw new CorruptStoreError(
      `${describe}, change ${head.version}`,
      `the store's head record says change ${head.version}, but the log holds changes up to ${version} (the head record is damaged)`,
    );
  }
  if (head.checksum !== chain) {
    throw new CorruptStoreError(
      `${describe}, change ${head.version}`,
      `the last change does not match the store's head record (checksum ${chain}, head ${head.checksum})`,
    );
  }
}

/** Refuses a change whose record is larger than `limit` bytes of UTF-8. */
export function checkChangeSize(sealed: SealedChange, limit: number): void {
  const text = sealed.payload;
  if (text.length <= limit / 3) return; // at most 3 UTF-8 bytes per UTF-16 unit
  const bytes = utf8Length(text);
  if (bytes > limit) throw new ChangeTooLargeError(sealed.version, bytes, limit);
}

function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
