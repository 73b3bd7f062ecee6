/**
 * The password hasher, recorded like the random source. A change keeps each hasher call's *output*
 * (the hash string, or the verify answer) in call order, never its input; a replay answers the
 * same calls from the recording. So a replay needs neither the passwords (they are redacted from
 * the stored parameters, see `redact.ts`) nor the same hasher as the original run.
 */
import type { PasswordHasher, RandomSource } from '../core/context';
import { ReplayMismatchError } from './errors';

/** One recorded hasher call: the hash `hash()` returned, or what `verify()` answered. */
export type PasswordCall = { readonly hash: string } | { readonly verify: boolean };

/** Wraps the host's hasher and keeps every answer it gives, in order. */
export class RecordingPasswordHasher implements PasswordHasher {
  private readonly calls: PasswordCall[] = [];

  /**
   * `saltSource` is the host's own (unrecorded) random source. Salts are drawn from it instead of
   * the recording source the operation passes: the hash itself is recorded, so its salt bytes need
   * not be, and a replay that answers `hash()` from the recording consumes no random bytes.
   */
  constructor(
    private readonly inner: PasswordHasher,
    private readonly saltSource: RandomSource,
  ) {}

  hash(password: string, _random: RandomSource): string {
    const out = this.inner.hash(password, this.saltSource);
    this.calls.push({ hash: out });
    return out;
  }

  verify(password: string, hash: string): boolean {
    const ok = this.inner.verify(password, hash) === true;
    this.calls.push({ verify: ok });
    return ok;
  }

  /** Every answer given, in call order. */
  recorded(): readonly PasswordCall[] {
    return [...this.calls];
  }
}

/**
 * Answers hasher calls from a recording. A call of the other kind than recorded, or one more call
 * than recorded, means the replay took another path: `ReplayMismatchError`.
 */
export class PlaybackPasswordHasher implements PasswordHasher {
  private at = 0;

  constructor(
    private readonly calls: readonly PasswordCall[],
    private readonly version: number,
  ) {}

  hash(_password: string, _random: RandomSource): string {
    const call = this.next('hash');
    if (!('hash' in call))
      throw this.mismatch('the replay hashed a password where the original verified one');
    return call.hash;
  }

  verify(_password: string, _hash: string): boolean {
    const call = this.next('verify');
    if (!('verify' in call))
      throw this.mismatch('the replay verified a password where the original hashed one');
    return call.verify;
  }

  get exhausted(): boolean {
    return this.at === this.calls.length;
  }

  private next(kind: 'hash' | 'verify'): PasswordCall {
    const call = this.calls[this.at];
    if (call === undefined) {
      throw this.mismatch(
        `the replay made more password hasher calls (a ${kind}) than the ${this.calls.length} recorded`,
      );
    }
    this.at++;
    return call;
  }

  private mismatch(detail: string): ReplayMismatchError {
    return new ReplayMismatchError(this.version, detail);
  }
}
