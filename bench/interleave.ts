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
