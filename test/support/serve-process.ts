/**
 * Starting `chat-realm serve` as a child process the way a user would (tsx, port 0) and waiting
 * for the `site=<url>` line it prints once it listens. Shared by the multi-process PostgreSQL
 * suites (serve-postgres, lease-failover, placement), which differ only in their flags.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServeProcess {
  readonly child: ChildProcess;
  /** The URL it serves at (its `site=` line). */
  readonly site: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Set once the process exited (or was killed). */
  readonly dead: boolean;
}

/**
 * Spawns `node --import tsx src/cli/main.ts serve <args>` and resolves once it prints its site;
 * rejects, with its output, when it exits before that.
 */
export function spawnServe(
  args: readonly string[],
  options: { readonly env?: SpawnOptions['env'] } = {},
): Promise<ServeProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  let out = '';
  let dead = false;
  let started = false;
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`serve exited with ${String(code)}:\n${out}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const site = /^site=(.+)$/m.exec(out)?.[1];
      if (site === undefined || started) return;
      started = true;
      child.removeAllListeners('exit');
      child.on('exit', () => (dead = true));
      resolve({
        child,
        site,
        output: () => out,
        get dead() {
          return dead;
        },
      });
    });
  });
}
