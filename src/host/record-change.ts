/**
 * Recording a live run as a change: the randomness and password hasher answers it used (so a
 * replay needs neither the host's random source nor its hasher), the time, the delete-topic limits,
 * and the input with its secrets redacted.
 */
import { sealChange, type Change, type ChangeInput } from './change';
import { liveHasher, randomSource, type HandleContext } from './handle-context';
import { RecordingPasswordHasher } from './passwords';
import { RecordingRandom } from './random';
import { redactInput } from './redact';
import type { SealedChange } from './store';

/** One per attempt: lend `random` and `passwords` to the run, then `seal` what it did. */
export class ChangeRecorder {
  readonly random: RecordingRandom;
  readonly passwords: RecordingPasswordHasher;

  constructor(private readonly ctx: HandleContext | undefined) {
    const source = randomSource(ctx);
    this.random = new RecordingRandom(source);
    this.passwords = new RecordingPasswordHasher(liveHasher(ctx), source);
  }

  /** The stored change; `redacted` says it lost secrets, so it must be proven to replay first. */
  /** `chain`: the checksum of the change before (see `sealChange`). */
  seal(
    chain: number,
    version: number,
    input: ChangeInput,
    now: number,
    status: Change['status'],
    /** A forwarded request's id and answer (request-ids.ts); the answer is dropped when redacted. */
    tag?: { readonly requestId: string; readonly answer: Change['answer'] },
  ): { readonly sealed: SealedChange; readonly redacted: boolean } {
    const dt = this.ctx?.deleteTopic;
    const stored = redactInput(input);
    const calls = this.passwords.recorded();
    // The fields in their stored (JSON) order, optional ones only when present. Nearly every
    // change has none of the middle ones: one literal then, instead of a spread per optional field.
    const change: Mutable<Change> =
      !dt && calls.length === 0 && !stored.redacted
        ? { version, input: stored.input, now, random: this.random.recorded(), status }
        : {
            version,
            input: stored.input,
            now,
            random: this.random.recorded(),
            ...(dt
              ? { deleteTopic: { batchSize: dt.batchSize ?? 100, maxBatches: finiteOrNull(dt.maxBatches) } }
              : {}),
            ...(calls.length > 0 ? { passwords: calls } : {}),
            ...(stored.redacted ? { redacted: true as const } : {}),
            status,
          };
    if (tag !== undefined) {
      change.requestId = tag.requestId;
      // A change that lost secrets keeps no answer either (it might echo them).
      if (tag.answer !== undefined && !stored.redacted) change.answer = tag.answer;
    }
    return { sealed: sealChange(change, chain), redacted: stored.redacted };
  }
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** JSON has no infinity: an unbounded limit is stored as `null`. */
function finiteOrNull(n: number | undefined): number | null {
  return n === undefined || !Number.isFinite(n) ? null : n;
}
