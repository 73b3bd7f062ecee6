import { errors, zulipError, type ZulipError } from '../core/errors';
import type { Actor } from '../core/operation';
import type { StrMap } from '../core/collections/str-map';
import type { RealmState } from '../core/state';

/**
 * HTTP Basic authentication with the user's email and API key, in the order Zulip checks
 * (reference digest 8-20 §1.5). Every failure but a non-Basic scheme is a 401 UNAUTHORIZED.
 * No header at all gives the anonymous actor; operations that need a user refuse it themselves.
 */
export function authenticate(state: RealmState, header: string | undefined): Actor | ZulipError {
  if (header === undefined) return { anonymous: true };
  const credential = credentialOf(header);
  if (credential === 'not_basic') return zulipError('This endpoint requires HTTP basic authentication.');
  if (credential === 'invalid_header')
    return errors.unauthorized('Invalid authorization header for basic auth');
  if (credential === 'malformed_key') return errors.unauthorized('Malformed API key');
  const { username, apiKey } = credential;
  const userId = userIdByKey(state.usersByApiKey, apiKey);
  const user = userId === undefined ? undefined : state.users.get(userId);
  // Case-insensitive; the exact spelling (what clients send) is checked first, without lowering.
  if (
    user === undefined ||
    (user.delivery_email !== username && user.delivery_email.toLowerCase() !== username.toLowerCase())
  ) {
    return errors.unauthorized('Invalid API key');
  }
  if (state.realm.deactivated) return errors.unauthorized('This organization has been deactivated');
  if (!user.is_active) return errors.unauthorized('Account is deactivated');
  if (user.is_bot && user.bot_type === 2)
    return errors.unauthorized('This API is not available to incoming webhook bots.');
  return { userId: user.user_id };
}

/**
 * `byKey.get(apiKey)`, remembered per key table: the table is immutable (a new one when a user or
 * key changes), and the key string is the decoded header's (memoized below), so its hash is
 * already known, where the table's own lookup hashes the 32 characters again on every request.
 * Weak by table: an old realm's table is forgotten with it. Bounded per table.
 */
const keysSeen = new WeakMap<StrMap<number>, Map<string, number | null>>();

function userIdByKey(byKey: StrMap<number>, apiKey: string): number | undefined {
  let seen = keysSeen.get(byKey);
  if (seen === undefined) keysSeen.set(byKey, (seen = new Map()));
  let userId = seen.get(apiKey);
  if (userId === undefined) {
    userId = byKey.get(apiKey) ?? null;
    if (seen.size >= MAX_DECODED) seen.clear();
    seen.set(apiKey, userId);
  }
  return userId ?? undefined;
}

type Credential =
  { readonly username: string; readonly apiKey: string } | 'not_basic' | 'invalid_header' | 'malformed_key';

/**
 * Decoded headers, by header text: a client sends the same header on every request (and the
 * host authenticates each request more than once), so decoding it is done once. Bounded; a
 * pure function's memo (the answer depends on the text alone).
 */
const decodedHeaders = new Map<string, Credential>();
const MAX_DECODED = 4096;

function credentialOf(header: string): Credential {
  let credential = decodedHeaders.get(header);
  if (credential === undefined) {
    credential = decodeCredential(header);
    if (decodedHeaders.size >= MAX_DECODED) decodedHeaders.clear();
    decodedHeaders.set(header, credential);
  }
  return credential;
}

function decodeCredential(header: string): Credential {
  const parts = header.trim().split(/\s+/);
  if ((parts[0] ?? '').toLowerCase() !== 'basic') return 'not_basic';
  if (parts.length !== 2) return 'invalid_header';
  const decoded = decodeBase64Utf8(parts[1]!);
  if (decoded === undefined) return 'invalid_header';
  const colon = decoded.split(':');
  if (colon.length !== 2) return 'invalid_header';
  const username = colon[0]!.trim();
  const apiKey = colon[1]!.trim();
  if (!/^[A-Za-z0-9]{32}$/.test(apiKey)) return 'malformed_key';
  return { username, apiKey };
}

/** Base64 alphabet value of each character code (-1: not in the alphabet). */
const BASE64 = (() => {
  const table = new Int8Array(128).fill(-1);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < alphabet.length; i++) table[alphabet.charCodeAt(i)] = i;
  return table;
})();
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Standard base64 (padding optional, as Python's lenient b64decode of a well-formed header) to
 * UTF-8 text; undefined when it is not valid. Hand-decoded because it runs on every request:
 * `atob` plus a mapped `Uint8Array.from` cost several microseconds per header in Node 20.
 */
function decodeBase64Utf8(text: string): string | undefined {
  let end = text.length;
  if (end % 4 === 1) return undefined;
  if (end > 0 && text.charCodeAt(end - 1) === 61 /* = */) end--;
  if (end > 0 && text.charCodeAt(end - 1) === 61) end--;
  if (end < text.length && text.length % 4 !== 0) return undefined; // padding only completes a quartet
  const bytes = new Uint8Array(Math.floor((end * 3) / 4));
  let ascii = true;
  let acc = 0;
  let bits = 0;
  let n = 0;
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    const v = c < 128 ? BASE64[c]! : -1;
    if (v < 0) return undefined;
    acc = ((acc << 6) | v) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const byte = (acc >> bits) & 0xff;
      if (byte >= 0x80) ascii = false;
      bytes[n++] = byte;
    }
  }
  if (ascii) {
    let out = '';
    for (let i = 0; i < n; i++) out += String.fromCharCode(bytes[i]!);
    return out;
  }
  try {
    return UTF8.decode(bytes.subarray(0, n));
  } catch {
    return undefined;
  }
}

/**
 * The header value a client sends for a user (handy for tests and examples).
 *
 * @example
 * ```ts
 * const authorization = basicAuthHeader('hamlet@zulip.com', 'hamletKKKKKKKKKKKKKKKKKKKKApiKey');
 * const r = handleApiRequest(realm, { method: 'GET', url: '/api/v1/users/me', headers: { authorization } }, { now });
 * expect(r.body).toMatchObject({ user_id: 4 });
 * ```
 */
export function basicAuthHeader(email: string, apiKey: string): string {
  const key = `${email}\n${apiKey}`;
  let header = builtHeaders.get(key);
  if (header === undefined) {
    header = buildBasicAuthHeader(email, apiKey);
    if (builtHeaders.size >= MAX_DECODED) builtHeaders.clear();
    builtHeaders.set(key, header);
  }
  return header;
}

/** Headers built for stored requests (a handle rebuilds its actor's header on every run). */
const builtHeaders = new Map<string, string>();

function buildBasicAuthHeader(email: string, apiKey: string): string {
  const bytes = new TextEncoder().encode(`${email}:${apiKey}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}
