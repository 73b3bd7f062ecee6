/**
 * `chat-realm simulate --preset large --out realm.json`: generates a realistic organization
 * (src/simulate) and writes it as a snapshot, streamed, with a progress bar on stderr.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parse, UsageError } from './common';
import { simulateRealm, PRESETS, type Preset } from '../simulate/simulate';
import { snapshotText } from '../simulate/snapshot-text';
import { snapshotChunks } from '../core/snapshot/snapshot-stream';

const HELP = `Usage: chat-realm simulate [--preset small|medium|large] [--users N] [--channels N] [--messages N]
                          [--seed N] [--dm-ratio X] [--out FILE]
Generates a deterministic, realistic organization and writes it as a chat-realm snapshot
(to FILE, or to standard output): the stream format (NDJSON, chat-realm.stream/2, what import
reads fastest) when FILE ends in .ndjson, else one JSON document. Presets: ${Object.entries(PRESETS)
  .map(([k, v]) => `${k} (${v.users} users, ${v.channels} channels, ${v.messages} messages)`)
  .join(', ')}.
`;

const OPTIONS = {
  preset: { type: 'string' },
  users: { type: 'string' },
  channels: { type: 'string' },
  messages: { type: 'string' },
  seed: { type: 'string' },
  'dm-ratio': { type: 'string' },
  out: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

function count(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return n;
}

/** A one-line progress bar on stderr (only when stderr is a terminal: no noise in logs). */
function progressBar(): (label: string, done: number, total: number) => void {
  const tty = process.stderr.isTTY === true;
  let last = '';
  return (label, done, total) => {
    const width = 30;
    const share = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(share * width);
    const line = `${label.padEnd(10)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(share * 100).toFixed(0).padStart(3)}%`;
    if (line === last) return;
    last = line;
    if (tty) process.stderr.write(`\r${line}`);
    else if (done === 0 || done >= total) process.stderr.write(`${line}\n`);
  };
}

export async function runSimulate(argv: readonly string[]): Promise<number> {
  let values;
  try {
    values = parse(argv, OPTIONS);
  } catch (e) {
    process.stderr.write(`chat-realm simulate: ${(e as Error).message}\n${HELP}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  try {
    const preset = values.preset ?? 'small';
    if (!(preset in PRESETS))
      throw new UsageError(`--preset must be one of ${Object.keys(PRESETS).join(', ')}`);
    const dmRatio = values['dm-ratio'] === undefined ? undefined : Number(values['dm-ratio']);
    if (dmRatio !== undefined && !(dmRatio >= 0 && dmRatio <= 1))
      throw new UsageError('--dm-ratio must be between 0 and 1');
    const bar = progressBar();
    const started = performance.now();
    const state = simulateRealm({
      preset: preset as Preset,
      ...(count('users', values.users) !== undefined ? { users: count('users', values.users)! } : {}),
      ...(count('channels', values.channels) !== undefined
        ? { channels: count('channels', values.channels)! }
        : {}),
      ...(count('messages', values.messages) !== undefined
        ? { messages: count('messages', values.messages)! }
        : {}),
      ...(count('seed', values.seed) !== undefined ? { seed: count('seed', values.seed)! } : {}),
      ...(dmRatio !== undefined ? { dmRatio } : {}),
      onProgress: (phase, done, total) => bar(phase, done, total),
    });
    bar('simulated', 1, 1);
    const out = values.out === undefined ? process.stdout : createWriteStream(values.out);
    // What the name says: import and export read and write .ndjson as the stream format.
    const pieces = values.out?.endsWith('.ndjson')
      ? snapshotChunks(state, { format: 'ndjson' })
      : snapshotText(state, 20_000, (done, total) => bar('writing', done, total));
    for (const piece of pieces) {
      if (!out.write(piece)) await once(out, 'drain');
    }
    if (out !== process.stdout) {
      out.end();
      await once(out, 'finish');
    }
    process.stderr.write(
      `\n${state.users.size} users, ${state.channels.size} channels, ${state.messages.count} messages in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
    );
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`chat-realm simulate: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}
