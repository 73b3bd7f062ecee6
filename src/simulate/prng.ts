/**
 * A small seeded PRNG (mulberry32) for the simulator: deterministic, fast, no Math.random.
 */
export class Prng {
  private s: number;

  constructor(seed: number) {
    this.s = (seed ^ 0x9e3779b9) | 0;
    for (let i = 0; i < 4; i++) this.u32();
  }

  /** A uniform 32-bit unsigned integer (mulberry32). */
  u32(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** A uniform float in [0, 1). */
  next(): number {
    return this.u32() / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }

  /** An index in [0, n) skewed towards 0 (a long tail): power `skew` > 1 skews more. */
  skewed(n: number, skew = 2): number {
    return Math.min(n - 1, Math.floor(Math.pow(this.next(), skew) * n));
  }

  /** Fisher–Yates shuffle in place. */
  shuffle<T>(list: T[]): T[] {
    for (let i = list.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const x = list[i]!;
      list[i] = list[j]!;
      list[j] = x;
    }
    return list;
  }

  /** A string of `n` characters from [A-Za-z0-9]. */
  alnum(n: number): string {
    const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    let s = '';
    for (let i = 0; i < n; i++) s += chars[this.int(chars.length)];
    return s;
  }
}
