/** The mark every chat-realm error carries, shared by every copy of the package (a global symbol). */
const BRAND = Symbol.for('chat-realm.error');

/**
 * The base of chat-realm's errors. `instanceof` answers by brand, not by class identity, so an
 * error thrown by the CommonJS build is still `instanceof SnapshotError` of the ESM build (and of
 * another copy of the package): no dual-package trap. Each subclass names itself in `brand`.
 *
 * @example
 * ```ts
 * const parsed = parseRealm({ format: 'nope' });
 * const caught = parsed.ok ? undefined : parsed.error;
 * expect(caught).toBeInstanceOf(SnapshotError);
 * expect(caught).toBeInstanceOf(ChatRealmError);
 * ```
 */
export class ChatRealmError extends Error {
  /** The error's stable name (class names do not survive minifiers). */
  static readonly brand: string = 'ChatRealmError';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    Object.defineProperty(this, BRAND, {
      value: (this.constructor as typeof ChatRealmError).brand,
      enumerable: false,
    });
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    const brand = (value as { [BRAND]?: unknown })[BRAND];
    if (typeof brand !== 'string') return false;
    return this.brand === 'ChatRealmError' || brand === this.brand;
  }
}
