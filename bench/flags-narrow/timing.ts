/**
 * Timing for the in-process benchmarks. Each side is warmed up until its median is stable (batches
 * of calls until two consecutive batch medians agree within 5 %, at least `minWarm` calls), then
 * the sides are timed interleaved in rounds (candidate batch, floor batch, …) so that load changes
 * on the shared machine hit both alike. Reported: the median wall time of one call and the CPU
 * time of this process per call (user + system, over the timed batches; its resolution is too
 * coarse for one call).
 */

export interface Timing {
  /** Median wall time of one call, ms. */
  readonly ms: number;
  /** CPU time per call, ms (mean over the timed calls). */
  readonly cpuMs: number;
  readonly calls: number;
  readonly warmCalls: number;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Calls `fn` `n` times, returns each call's wall time (ms) and the CPU time of the batch (ms). */
function batch(fn: () => unknown, n: number, into: number[]): number {
  const c = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    fn();
    into.push(performance.now() - t);
  }
  const d = process.cpuUsage(c);
  return (d.user + d.system) / 1000;
}

/** Warms `fn` until its batch median is stable; returns the number of calls made. */
export function warm(fn: () => unknown, minWarm: number, batchSize: number, maxWarm = minWarm * 10): number {
  let calls = 0;
  let prev = Infinity;
  for (;;) {
    const times: number[] = [];
    batch(fn, batchSize, times);
    calls += batchSize;
    const m = median(times);
    if (calls >= minWarm && Math.abs(m - prev) <= 0.05 * Math.max(m, prev)) return calls;
    if (calls >= maxWarm) return calls;
    prev = m;
  }
}

export interface CompareOptions {
  /** Calls per batch (also the warm-up batch). */
  readonly batch: number;
  /** Interleaved rounds; each side runs `batch` calls per round. */
  readonly rounds: number;
  readonly minWarm: number;
}

/** Times several functions side by side in interleaved rounds, after warming each. */
export function compare(fns: ReadonlyArray<() => unknown>, o: CompareOptions): Timing[] {
  const warmCalls = fns.map((f) => warm(f, o.minWarm, o.batch));
  const times: number[][] = fns.map(() => []);
  const cpu = fns.map(() => 0);
  for (let r = 0; r < o.rounds; r++) {
    fns.forEach((f, k) => {
      cpu[k]! += batch(f, o.batch, times[k]!);
    });
  }
  return fns.map((_, k) => ({
    ms: median(times[k]!),
    cpuMs: cpu[k]! / times[k]!.length,
    calls: times[k]!.length,
    warmCalls: warmCalls[k]!,
  }));
}

/** Options sized so that one side's timed calls take roughly `targetMs` in total. */
export function sized(approxCallMs: number, quick: boolean): CompareOptions {
  const total = quick ? 300 : 1500; // ms of timed calls per side
  const calls = Math.max(20, Math.min(3000, Math.round(total / Math.max(approxCallMs, 0.001))));
  const rounds = approxCallMs > 5 ? 5 : 10;
  const b = Math.max(2, Math.ceil(calls / rounds));
  return { batch: b, rounds, minWarm: Math.max(quick ? 50 : 200, b) };
}
