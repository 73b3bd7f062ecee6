/**
 * A URL check shaped after Django's `URLValidator` (which Zulip uses for link profile fields and
 * external-account URL patterns): scheme http, https, ftp or ftps; optional user:password@; a host
 * that is `localhost`, a dotted domain with a TLD of 2+ letters (or punycode), an IPv4 address or a
 * bracketed IPv6 address; an optional port of up to 5 digits; then any non-space path, query and
 * fragment; at most 2048 characters. Matching is case-insensitive.
 */
const LABEL = '[a-z\\u00a1-\\uffff0-9](?:[a-z\\u00a1-\\uffff0-9-]{0,61}[a-z\\u00a1-\\uffff0-9])?';
const TLD = '\\.(?!-)(?:[a-z\\u00a1-\\uffff-]{2,63}|xn--[a-z0-9]{1,59})(?<!-)\\.?';
const IPV4 =
  '(?:0|25[0-5]|2[0-4]\\d|1\\d?\\d?|[1-9]\\d?)(?:\\.(?:0|25[0-5]|2[0-4]\\d|1\\d?\\d?|[1-9]\\d?)){3}';
const IPV6 = '\\[[0-9a-f:.]+\\]';
const HOST = `(?:${IPV4}|${IPV6}|${LABEL}(?:\\.${LABEL})*${TLD}|localhost)`;
const URL_PATTERN = new RegExp(
  `^(?:https?|ftps?)://(?:[^\\s:@/]+(?::[^\\s:@/]*)?@)?${HOST}(?::[0-9]{1,5})?(?:[/?#][^\\s]*)?$`,
  'iu',
);

export function isUrl(value: string): boolean {
  if (value.length > 2048) return false;
  return URL_PATTERN.test(value);
}

/**
 * `decodeURIComponent`, or the text as sent when its escapes are malformed (Django keeps such a
 * path segment raw too); text without `%` is returned without trying.
 */
export function decodePercentOrRaw(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
