import { median } from './stats';

/** Median wall and CPU µs per call of each function. */
export interface Timing {
  readonly wall: number;
  readonly cpu: number;
}

/**
 * Times `fns` interleaved batch by batch (so load changes hit every side alike): `warm` batches of
 * each first, then `batches` timed batches of `per` calls; medians of the per-call wall time and
 * of the per-call CPU time (`process.cpuUsage`, user + system, GC helper threads included).
 */
export function interleaved(
  fns: ReadonlyArray<() => unknown>,
  { per, batches = 11, warm = 3 }: { per: number; batches?: number; warm?: number },
): Timing[] {
  for (let w = 0; w < warm; w++) for (const fn of fns) for (let i = 0; i < per; i++) fn();
  const wall: number[][] = fns.map(() => []);
  const cpu: number[][] = fns.map(() => []);
  for (let b = 0; b < batches; b++) {
    fns.forEach((fn, k) => {
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      for (let i = 0; i < per; i++) fn();
      const w = ((performance.now() - w0) / per) * 1000;
      const c = process.cpuUsage(c0);
      wall[k]!.push(w);
      cpu[k]!.push((c.user + c.system) / per);
    });
  }
  return fns.map((_, k) => ({ wall: median(wall[k]!), cpu: median(cpu[k]!) }));
}

/** `gc({ type: 'minor' })` under --expose-gc (a scavenge of the young generation only). */
const exposedGc = (globalThis as { gc?: (opts: { type: 'minor' }) => void }).gc;

/**
 * Empties the young generation (a minor GC), so that what comes next starts without earlier
 * garbage and pays only for its own scavenges. Without --expose-gc: nothing.
 */
export function emptyYoung(): void {
  exposedGc?.({ type: 'minor' });
}

/**
 * Like `interleaved`, but each side's batch is sized to last at least `minBatchMs` (so a cheap
 * side is not timed over a handful of microseconds), and every batch starts with an empty young
 * generation (a minor GC outside the timing) and ends with one inside it. Each side then pays for
 * exactly the garbage it made, and a scavenge that the previous side's garbage made due does not
 * land (with its parallel helper threads' CPU time) in the next side's batch. Without --expose-gc
 * the minor GCs are skipped.
 */
export function interleavedSized(
  fns: ReadonlyArray<() => unknown>,
  { minBatchMs = 40, batches = 21, warm = 3 }: { minBatchMs?: number; batches?: number; warm?: number } = {},
): Timing[] {
  // Warm-up batches of growing size until one lasts minBatchMs: that size is the side's batch.
  const per = fns.map((fn) => {
    let n = 1;
    for (;;) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) fn();
      const ms = performance.now() - t0;
      if (ms >= minBatchMs) return n;
      n = Math.max(n * 2, Math.ceil((n * minBatchMs) / Math.max(ms, 0.001)));
    }
  });
  for (let w = 0; w < warm; w++)
    fns.forEach((fn, k) => {
      for (let i = 0; i < per[k]!; i++) fn();
    });
  // The sizes above came from cold calls (code not yet optimized): a side that got faster while
  // warming is sized again so that its batches still last minBatchMs (never fewer calls).
  fns.forEach((fn, k) => {
    const n = per[k]!;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) fn();
    const ms = performance.now() - t0;
    if (ms < minBatchMs) per[k] = Math.ceil((n * minBatchMs) / Math.max(ms, 0.001));
  });
  const wall: number[][] = fns.map(() => []);
  const cpu: number[][] = fns.map(() => []);
  for (let b = 0; b < batches; b++) {
    fns.forEach((fn, k) => {
      const n = per[k]!;
      emptyYoung();
      const c0 = process.cpuUsage();
      const w0 = performance.now();
      for (let i = 0; i < n; i++) fn();
      emptyYoung();
      const w = ((performance.now() - w0) / n) * 1000;
      const c = process.cpuUsage(c0);
      wall[k]!.push(w);
      cpu[k]!.push((c.user + c.system) / n);
    });
  }
  return fns.map((_, k) => ({ wall: median(wall[k]!), cpu: median(cpu[k]!) }));
}
