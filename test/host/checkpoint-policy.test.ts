import { describe, expect, it } from 'vitest';
import { CheckpointSchedule } from '../../src/host/checkpoint-policy';
import { memoryStore } from '../../src/stores/memory/index';
import { devRealm } from '../support/realm';

describe('checkpoint schedule', () => {
  it('with minLogShare, waits until the log holds that share of the last checkpoint', async () => {
    const store = memoryStore();
    const schedule = new CheckpointSchedule({ everyChanges: 2, minLogShare: 0.5 });
    const state = devRealm();
    // No checkpoint written yet: by count alone.
    schedule.spent(0, 10);
    schedule.spent(0, 10);
    expect(schedule.due(2)).toBe(true);
    await schedule.write(store, 2, state, 0);
    const bytes = (await store.load()).checkpoint!.payload.length;
    expect(bytes).toBeGreaterThan(1000);
    // Past `everyChanges`, but the log is far from half the checkpoint's size.
    schedule.spent(0, 10);
    schedule.spent(0, 10);
    schedule.spent(0, 10);
    expect(schedule.due(5)).toBe(false);
    expect(schedule.overdue(6)).toBe(false);
    schedule.spent(0, Math.ceil(bytes / 2));
    expect(schedule.due(6)).toBe(true);
    expect(schedule.overdue(6)).toBe(false);
    schedule.spent(0, Math.ceil(bytes / 2));
    expect(schedule.overdue(6)).toBe(true);
  });

  it('without it, by count alone', async () => {
    const store = memoryStore();
    const schedule = new CheckpointSchedule({ everyChanges: 2 });
    await schedule.write(store, 1, devRealm(), 0);
    expect(schedule.due(2)).toBe(false);
    expect(schedule.due(3)).toBe(true);
  });
});
