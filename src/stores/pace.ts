/**
 * Pacing of a checkpoint's parts: a checkpoint is background work, and written as fast as the disk
 * takes it, its writes and syncs fill the disk's queue so that the changes' own small commits wait
 * behind them. Paced, those commits meet an idle disk most of the time (bench/checkpoint-stall.ts).
 */

/** The default pace of checkpoint parts, in bytes per second. */
export const DEFAULT_CHECKPOINT_PACE = 16 * 1024 * 1024;

/** Checks a `checkpointBytesPerSecond` option: a positive number (`Infinity`: no pacing). */
export function checkPace(bytesPerSecond: number | undefined): number {
  const pace = bytesPerSecond ?? DEFAULT_CHECKPOINT_PACE;
  if (typeof pace !== 'number' || !(pace > 0))
    throw new TypeError(
      `checkpointBytesPerSecond must be a positive number or Infinity, not ${String(pace)}`,
    );
  return pace;
}

/**
 * One checkpoint's pacer: after each part, how many milliseconds to wait so that the parts so far
 * are not ahead of the pace (counted from the first part). `now`: the clock, in milliseconds.
 */
export function pacer(
  bytesPerSecond: number,
  now: () => number = () => performance.now(),
): (bytes: number) => number {
  let from: number | undefined;
  let total = 0;
  return (bytes) => {
    if (bytesPerSecond === Infinity) return 0;
    from ??= now();
    total += bytes;
    return Math.max(0, from + (total / bytesPerSecond) * 1000 - now());
  };
}

/** Waits `ms` milliseconds (nothing when `ms` is 0). */
export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
