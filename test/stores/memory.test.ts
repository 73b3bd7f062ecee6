import { memoryStore, type MemoryStore } from '../../src/stores/memory/index';
import { storeConformance } from './conformance';

storeConformance('memory', async () => {
  // Stores share the records, as processes share a database.
  const first = memoryStore();
  return {
    open: async () => bindTo(first),
    damageChange: async (version, payload, checksum) => {
      const i = first.records.changes.findIndex((c) => c.version === version);
      const old = first.records.changes[i]!;
      first.records.changes[i] = { ...old, payload, checksum: checksum ?? old.checksum };
    },
    dropChangesFrom: async (version) => {
      first.records.changes = first.records.changes.filter((c) => c.version < version);
    },
    cleanup: async () => {},
  };
});

/** A view of `store` that another handle can own (closing it closes nothing). */
function bindTo(store: MemoryStore): MemoryStore {
  return {
    describe: store.describe,
    records: store.records,
    load: () => store.load(),
    changesSince: (after) => store.changesSince(after),
    append: (change, expected) => store.append(change, expected),
    appendBatch: (changes, expected) => store.appendBatch(changes, expected),
    writeCheckpoint: (cp) => store.writeCheckpoint(cp),
    close: async () => {},
  };
}
