import type { RandomSource } from '../core/context';
import { ReplayMismatchError } from './errors';

/** Wraps a source and keeps every byte it hands out, so the change can be replayed exactly. */
export class RecordingRandom implements RandomSource {
  private readonly taken: Uint8Array[] = [];
  private size = 0;
  constructor(private readonly source: RandomSource) {}

  bytes(n: number): Uint8Array {
    const out = this.source.bytes(n);
    this.taken.push(out.slice());
    this.size += out.length;
    return out;
  }

  /** Base64 of every byte handed out, in order ('' when none). */
  recorded(): string {
    if (this.size === 0) return '';
    const all = new Uint8Array(this.size);
    let at = 0;
    for (const chunk of this.taken) {
      all.set(chunk, at);
      at += chunk.length;
    }
    return toBase64(all);
  }
}

/** Hands out recorded bytes again; asking for more than were recorded means the replay diverged. */
export class PlaybackRandom implements RandomSource {
  private at = 0;
  private readonly data: Uint8Array;
  constructor(
    recorded: string,
    private readonly version: number,
  ) {
    this.data = fromBase64(recorded);
  }

  bytes(n: number): Uint8Array {
    if (this.at + n > this.data.length) {
      throw new ReplayMismatchError(
        this.version,
        `asked for more random bytes than the ${this.data.length} recorded`,
      );
    }
    const out = this.data.slice(this.at, this.at + n);
    this.at += n;
    return out;
  }

  get exhausted(): boolean {
    return this.at === this.data.length;
  }
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}
