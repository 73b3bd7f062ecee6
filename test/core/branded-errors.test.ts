import { describe, expect, it } from 'vitest';
import { ChatRealmError } from '../../src/core/branded-error';
import { SnapshotError } from '../../src/core/snapshot/issues';
import { PersistError, RealmClosedError } from '../../src/host/errors';
import { createRealm } from '../../src/index';

/** An error as another copy of the package (the CommonJS build, say) would make it. */
function fromAnotherCopy(brand: string): Error {
  const error = new Error('elsewhere');
  Object.defineProperty(error, Symbol.for('chat-realm.error'), { value: brand });
  return error;
}

describe('errors recognisable across copies of the package', () => {
  it('answers instanceof by brand', () => {
    expect(fromAnotherCopy('SnapshotError')).toBeInstanceOf(SnapshotError);
    expect(fromAnotherCopy('SnapshotError')).not.toBeInstanceOf(PersistError);
    expect(fromAnotherCopy('RealmClosedError')).toBeInstanceOf(RealmClosedError);
    expect(fromAnotherCopy('RealmClosedError')).toBeInstanceOf(ChatRealmError);
    expect(new Error('plain')).not.toBeInstanceOf(ChatRealmError);
    expect(null).not.toBeInstanceOf(SnapshotError);
  });

  it('keeps names and instanceof for its own errors', () => {
    let caught: unknown;
    try {
      // @ts-expect-error -- a wrong format: a compile error, and refused at run time
      createRealm({ format: 'nope' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(SnapshotError);
    expect(caught).toBeInstanceOf(ChatRealmError);
    expect(caught).not.toBeInstanceOf(PersistError);
    expect((caught as Error).name).toBe('SnapshotError');
    expect(new RealmClosedError()).toBeInstanceOf(RealmClosedError);
  });
});
