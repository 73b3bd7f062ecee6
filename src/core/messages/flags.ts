/**
 * Per-user message flags as bits, in Zulip's own UserMessage bit order. `is_private` is not a flag a
 * client sees in a snapshot; we keep it on each row (as Zulip does) so `is:dm` narrows need no
 * message lookup.
 */
export const FLAG_BITS = {
  read: 1 << 0,
  starred: 1 << 1,
  collapsed: 1 << 2,
  mentioned: 1 << 3,
  stream_wildcard_mentioned: 1 << 4,
  topic_wildcard_mentioned: 1 << 5,
  has_alert_word: 1 << 6,
  historical: 1 << 7,
  is_private: 1 << 8,
} as const;

export type FlagName = Exclude<keyof typeof FLAG_BITS, 'is_private'>;

/** The flags a snapshot and the API name, in bit order. */
export const FLAG_NAMES: readonly FlagName[] = [
  'read',
  'starred',
  'collapsed',
  'mentioned',
  'stream_wildcard_mentioned',
  'topic_wildcard_mentioned',
  'has_alert_word',
  'historical',
];

export function isFlagName(name: string): name is FlagName {
  return (FLAG_NAMES as readonly string[]).includes(name);
}

export function flagsToBits(names: readonly FlagName[]): number {
  let bits = 0;
  for (const n of names) bits |= FLAG_BITS[n];
  return bits;
}

/** Flag names of a row, sorted alphabetically (the snapshot's canonical order). */
export function bitsToFlags(bits: number): FlagName[] {
  return FLAG_NAMES.filter((n) => (bits & FLAG_BITS[n]) !== 0).sort();
}

/** Bits on a message itself (not per user). */
export const MESSAGE_BITS = {
  has_link: 1 << 0,
  has_attachment: 1 << 1,
  has_image: 1 << 2,
  has_reaction: 1 << 3,
} as const;
