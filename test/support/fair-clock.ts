/** Lets event-loop turns run until `answers` settle, advancing a fake clock and firing the pacing timers it armed (paced users wake as time passes); at most 1000 rounds. */
export async function settleWithTime<T>(
  answers: readonly Promise<T>[],
  clock: { now: number },
  timers: (() => void)[],
): Promise<T[]> {
  let settled = false;
  const all = Promise.all(answers).then((v) => {
    settled = true;
    return v;
  });
  for (let round = 0; !settled && round < 1000; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    clock.now += 10_000;
    for (const fire of timers.splice(0)) fire();
  }
  return all;
}
