/** The median of a sample (the upper middle for an even count), as every bench here reports it. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}
