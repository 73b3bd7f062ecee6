/**
 * The instructions `chat-realm serve` prints, run as a newcomer would paste them (bash, curl, node,
 * python3) against a real server: the zuliprc command writes ./chat-realm-zuliprc (never
 * ~/.zuliprc); the three-line curl sequence shows the message event reaching the printed user's
 * queue; zulip-js and Zulip's Python client (when `python3 -c 'import zulip'` works, e.g. with
 * PYTHONPATH pointing at a python-zulip-api checkout) print the event as it arrives. Also: under
 * `npm start`, a SIGTERM to npm stops the server (npm passes it only to its shell).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'chat-realm-instructions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A child's output as it grows, and a wait for a pattern in it. */
function watch(child: ChildProcess): {
  text(): string;
  until(pattern: RegExp, ms?: number): Promise<string>;
} {
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return {
    text: () => out,
    until: (pattern, ms = 30_000) =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + ms;
        const check = () => {
          if (pattern.test(out)) return resolve(out);
          if (Date.now() > deadline || child.exitCode !== null)
            return reject(new Error(`no ${pattern} in:\n${out}`));
          setTimeout(check, 50);
        };
        check();
      }),
  };
}

const stopped = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', () => resolve())));

/** bash -c, in the scratch folder; resolves with stdout once it exits. */
function bash(command: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', command], {
    cwd: dir,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.status, `${command}\n${r.stderr}`).toBe(0);
  return r.stdout;
}

/** The printed commands: the indented lines of the banner, by what they start with. */
function printed(banner: string): { zuliprc: string; sequence: string[]; python: string; node: string } {
  const lines = banner.split('\n');
  const at = lines.findIndex((l) => l.startsWith('  cat > chat-realm-zuliprc'));
  const end = lines.indexOf('EOF', at);
  const indented = lines.filter((l) => l.startsWith('  ')).map((l) => l.slice(2));
  const sequence = indented.filter(
    (l) => l.startsWith('Q=$(') || l.includes('/api/v1/messages') || l.includes('/api/v1/events'),
  );
  return {
    zuliprc: lines
      .slice(at, end + 1)
      .map((l) => l.replace(/^ {2}/, ''))
      .join('\n'),
    sequence,
    python: indented.find((l) => l.startsWith('python3 -c'))!,
    node: indented.find((l) => l.startsWith('node -e'))!,
  };
}

describe('the instructions serve prints', () => {
  it('work as pasted: the zuliprc file, a live event by curl, zulip-js and the Python client', async () => {
    const port = await freePort();
    const server = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--memory', '--port', String(port)],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const out = watch(server);
    const clients: ChildProcess[] = [];
    try {
      const banner = await out.until(/Stop with Ctrl\+C/);
      const steps = printed(banner);
      // ~/.zuliprc is named once: as the file not to write.
      expect(banner.match(/~\/\.zuliprc/g)).toEqual(['~/.zuliprc']);
      expect(banner).toContain('(not ~/.zuliprc,');

      // The zuliprc command writes ./chat-realm-zuliprc, and nothing in the home folder.
      const homeRc = join(homedir(), '.zuliprc');
      const hadHomeRc = existsSync(homeRc) ? readFileSync(homeRc, 'utf8') : undefined;
      bash(steps.zuliprc);
      expect(readFileSync(join(dir, 'chat-realm-zuliprc'), 'utf8')).toBe(
        `[api]\nemail=iago@zulip.com\nkey=iagoKKKKKKKKKKKKKKKKKKKKKKApiKey\nsite=http://127.0.0.1:${port}\n`,
      );
      expect(existsSync(homeRc) ? readFileSync(homeRc, 'utf8') : undefined).toBe(hadHomeRc);

      // The three lines, as one paste: the last prints Iago's queue holding Hamlet's message.
      expect(steps.sequence).toHaveLength(3);
      const answers = bash(steps.sequence.join('\n'));
      const polled = JSON.parse(answers.slice(answers.lastIndexOf('{"result"'))) as {
        result: string;
        events: Array<{
          type: string;
          message: { sender_full_name: string; content: string; display_recipient: string };
        }>;
      };
      expect(polled.result).toBe('success');
      expect(polled.events).toEqual([
        expect.objectContaining({
          type: 'message',
          message: expect.objectContaining({
            sender_full_name: 'King Hamlet',
            content: 'Hello from chat-realm',
            display_recipient: 'Verona',
          }),
        }),
      ]);

      // Real clients keep printing events: each sees the message sent again by the second line.
      const send = steps.sequence[1]!;
      const live: Array<[string, ChildProcess]> = [
        // zulip-js from this checkout's node_modules (the printed line says to npm install it).
        [
          'zulip-js',
          spawn('bash', ['-c', steps.node], {
            cwd: dir,
            env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
            stdio: ['ignore', 'pipe', 'pipe'],
          }),
        ],
      ];
      const python = spawnSync('python3', ['-c', 'import zulip'], { cwd: dir });
      if (python.status === 0) {
        live.push([
          'python',
          spawn('bash', ['-c', steps.python], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }),
        ]);
      } else {
        console.warn(
          'instructions.test.ts: the Python snippet is not run: python3 cannot import zulip (pip install zulip, or PYTHONPATH)',
        );
      }
      const watchers = live.map(([name, child]) => {
        clients.push(child);
        return [name, watch(child)] as const;
      });
      // Registered once the server has answered each client's POST /register: then send.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      bash(send);
      for (const [name, w] of watchers) {
        const text = await w.until(/Hello from chat-realm/, 30_000).catch((e: Error) => e.message);
        expect(text, name).toMatch(
          /'?type'?: '?message'?[\s\S]*Hello from chat-realm|Hello from chat-realm[\s\S]*'type': 'message'/,
        );
      }
    } finally {
      for (const c of clients) c.kill('SIGKILL');
      server.kill('SIGTERM');
      await stopped(server);
    }
  });

  it('under npm start, a SIGTERM to npm stops the server and frees the port', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['start', '--silent', '--', '--memory', '--port', String(port)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    const out = watch(npm);
    await out.until(/Stop with Ctrl\+C/, 60_000);
    npm.kill('SIGTERM');
    await stopped(npm);
    const free = async () =>
      new Promise<boolean>((resolve) => {
        const socket = createConnection({ port, host: '127.0.0.1' });
        socket.once('connect', () => (socket.destroy(), resolve(false)));
        socket.once('error', () => resolve(true));
      });
    const deadline = Date.now() + 10_000;
    while (!(await free()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await free(), `port ${port} still served after SIGTERM to npm:\n${out.text()}`).toBe(true);
  });
});
