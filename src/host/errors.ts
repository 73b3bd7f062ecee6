import { ChatRealmError } from '../core/branded-error';
/** Errors of the persistence layer. Each names where the problem is, so an operator can act on it. */

/** An append found the store at another version than the writer expected (another writer got there first). */
export class VersionConflictError extends ChatRealmError {
  static override readonly brand = 'VersionConflictError';
  override readonly name = 'VersionConflictError';
  constructor(
    /** The version the writer based its change on. */
    readonly expected: number,
    /** The store's latest version when the append was refused. */
    readonly actual: number,
  ) {
    super(
      `Version conflict: the change was based on version ${expected}, but the store is at version ${actual}`,
    );
  }
}

/** A stored record is damaged, truncated, missing or inconsistent. The store is refused whole. */
export class CorruptStoreError extends ChatRealmError {
  static override readonly brand = 'CorruptStoreError';
  override readonly name = 'CorruptStoreError';
  constructor(
    /** Where: e.g. `sqlite /var/lib/realm.db, realm "main", change 17`. */
    readonly where: string,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`Corrupt realm store at ${where}: ${reason}`, options);
  }
}

/** The store was written by a newer chat-realm (an unknown format version): refused, never guessed at. */
export class UnsupportedFormatError extends ChatRealmError {
  static override readonly brand = 'UnsupportedFormatError';
  override readonly name = 'UnsupportedFormatError';
  constructor(
    readonly where: string,
    readonly format: number,
    readonly supported: number,
  ) {
    super(
      `${where} has format ${format}; this chat-realm reads formats up to ${supported} (written by a newer version?)`,
    );
  }
}

/** Replaying a stored change did not give the result it had when it was acknowledged. */
export class ReplayMismatchError extends ChatRealmError {
  static override readonly brand = 'ReplayMismatchError';
  override readonly name = 'ReplayMismatchError';
  constructor(
    readonly version: number,
    readonly detail: string,
  ) {
    super(`Replaying change ${version} diverged from the recorded result: ${detail}`);
  }
}

/** A change could not be persisted; it was not applied and not acknowledged. `cause` is the store's error. */
export class PersistError extends ChatRealmError {
  static override readonly brand = 'PersistError';
  override readonly name = 'PersistError';
  constructor(
    readonly version: number,
    options: { cause: unknown },
  ) {
    super(`Change ${version} could not be persisted: ${describe(options.cause)}`, options);
  }
}

/** A change's stored record would exceed the handle's `maxChangeBytes`; it is not stored or acknowledged. */
export class ChangeTooLargeError extends ChatRealmError {
  static override readonly brand = 'ChangeTooLargeError';
  override readonly name = 'ChangeTooLargeError';
  constructor(
    readonly version: number,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(
      `Change ${version} would store ${bytes} bytes, more than the limit of ${limit} (maxChangeBytes); it was not applied`,
    );
  }
}

/**
 * The realm handle stopped serving its realm: applying a stored change (loading, or catching up with
 * another writer's changes) diverged from the recorded result, or found a record it cannot read.
 * The handle keeps the last state it knows is right (`version`) but answers nothing from it: `run`
 * rejects with this error and `request` answers it as a 503 (`code` `REALM_HALTED`). Other realms are
 * unaffected. Recovery: docs/persistence.md, "When a replay diverges".
 */
export class RealmHaltedError extends ChatRealmError {
  static override readonly brand = 'RealmHaltedError';
  override readonly name = 'RealmHaltedError';
  constructor(
    /** Where: the store, as in other errors. */
    readonly where: string,
    /** The last version applied, whose state is right. */
    readonly version: number,
    /** The change that could not be applied. */
    readonly change: number,
    options: { cause: unknown },
  ) {
    super(
      `The realm in ${where} is halted at version ${version}: change ${change} could not be applied ` +
        `(${describe(options.cause)}). Its requests are refused until it is recovered ` +
        `(chat-realm doctor; docs/persistence.md, "When a replay diverges")`,
      options,
    );
  }
}

/**
 * An append by a process that does not hold the realm's write lease, or no longer does: another
 * process took it over (a newer fencing token), so this process's late append is refused and
 * nothing is written. The change was not applied: sending the request to the lease holder is safe.
 */
export class LeaseLostError extends ChatRealmError {
  static override readonly brand = 'LeaseLostError';
  override readonly name = 'LeaseLostError';
  constructor(
    readonly where: string,
    /** The token this process appended with (undefined: it held no lease). */
    readonly token: number | undefined,
    /** The lease's token in the database when the append was refused (undefined: no lease row). */
    readonly current: number | undefined,
  ) {
    super(
      token === undefined
        ? `${where}: this process does not hold the realm's write lease`
        : `${where}: the write lease was taken over (token ${String(current)}, this process had ${token}); the append is refused`,
    );
  }
}

/** The handle was closed; no more operations. */
export class RealmClosedError extends ChatRealmError {
  static override readonly brand = 'RealmClosedError';
  override readonly name = 'RealmClosedError';
  constructor() {
    super('The realm handle is closed');
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
