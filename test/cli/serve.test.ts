/**
 * The command line, started as a user would (`node --import tsx src/cli/main.ts ...`), driven with
 * the real zulip-js client from the credentials it prints. zulip-js replaces the global FormData,
 * hence this file of its own (vitest runs each file in its own process).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import zulip from 'zulip-js';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run';
import { expectValidResponse } from '../support/openapi';
import { freePort } from '../support/free-port';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'chat-realm-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  readonly child: ChildProcess;
  readonly zuliprc: { email: string; key: string; site: string };
  readonly curl: string;
  readonly output: () => string;
}

function cli(args: readonly string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs a command to completion. */
function runCli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = cli(args);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Starts `serve` and waits for the printed zuliprc. */
function serve(args: readonly string[]): Promise<Started> {
  const child = cli(['serve', ...args]);
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const email = /^email=(.+)$/m.exec(out)?.[1];
      const key = /^key=(.+)$/m.exec(out)?.[1];
      const site = /^site=(.+)$/m.exec(out)?.[1];
      const curl = /^\s*(curl .+)$/m.exec(out)?.[1];
      if (email && key && site && curl) {
        child.removeAllListeners('exit');
        resolve({ child, zuliprc: { email, key, site }, curl, output: () => out });
      }
    });
  });
}

/** Runs a command in this process (for quick refusals and help), collecting its output. */
async function inProcess(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { out: (t) => (stdout += `${t}\n`), err: (t) => (stderr += `${t}\n`) });
  return { code, stdout, stderr };
}

function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.kill(signal);
  });
}

describe('chat-realm serve', () => {
  it('serves the demo organization from SQLite, prints working credentials, and keeps changes across restarts', async () => {
    const db = join(dir, 'restart.db');
    const port = await freePort();
    const first = await serve(['--db', db, '--port', String(port)]);
    expect(first.zuliprc.site).toBe(`http://127.0.0.1:${port}`);
    expect(first.output()).toContain('created from the demo organization');
    expect(first.curl).toContain(`${first.zuliprc.site}/api/v1/users/me`);

    // The printed zuliprc, as a file, is what zulip-js reads.
    const rc = join(dir, 'zuliprc');
    writeFileSync(
      rc,
      `[api]\nemail=${first.zuliprc.email}\nkey=${first.zuliprc.key}\nsite=${first.zuliprc.site}\n`,
    );
    const client = await zulip({ zuliprc: rc });
    const me = (await client.users.me.getProfile()) as Record<string, unknown>;
    expectValidResponse('get-own-user', 200, me);
    expect(me['email']).toBe(first.zuliprc.email);
    expect(me['role']).toBe(200);
    // The demo realm names the address it was created on, so clients that follow realm_url reach it.
    const settings = (await client.callEndpoint('/server_settings', 'GET', {})) as Record<string, unknown>;
    expect(settings['realm_url']).toBe(first.zuliprc.site);

    const renamed = await client.callEndpoint('/settings', 'PATCH', { full_name: 'Iago the Persistent' });
    expectValidResponse('update-settings', 200, renamed);
    expect(renamed).toEqual({ result: 'success', msg: '' });
    expect(await stop(first.child)).toBe(0);

    // Same file, no snapshot: the store opens as it was.
    const second = await serve(['--db', db, '--port', String(port)]);
    expect(second.output()).toContain('opened, version 1');
    const again = await zulip({ zuliprc: rc });
    const after = (await again.users.me.getProfile()) as Record<string, unknown>;
    expectValidResponse('get-own-user', 200, after);
    expect(after['full_name']).toBe('Iago the Persistent');

    // Live clients: the banner shows how; a queue registered here gets the next change, and a poll
    // still waiting when the server stops is answered rather than left hanging.
    expect(second.output()).toContain('call_on_each_event');
    expect(second.output()).toContain('queues.register');
    const reg = (await again.queues.register({ event_types: ['realm_user'] })) as Record<string, unknown>;
    expectValidResponse('register-queue', 200, reg);
    const poll = again.events.retrieve({ queue_id: reg['queue_id'], last_event_id: -1 });
    await again.callEndpoint('/settings', 'PATCH', { full_name: 'Iago the Live' });
    expect(((await poll) as { events: unknown[] }).events).toEqual([
      expect.objectContaining({ type: 'realm_user', person: { user_id: 2, full_name: 'Iago the Live' } }),
    ]);
    // Handled at once: the poll may not have reached the server before SIGINT, and then its
    // socket is closed under it (a rejection nobody awaited yet would fail the run).
    const waiting = again.events
      .retrieve({ queue_id: reg['queue_id'], last_event_id: 0 })
      .catch(() => undefined);
    expect(await stop(second.child, 'SIGINT')).toBe(0);
    await waiting;

    // export writes the realm with the change.
    const exported = join(dir, 'export.json');
    const result = await inProcess(['export', '--db', db, '--out', exported]);
    expect(result.code).toBe(0);
    const snapshot = JSON.parse(readFileSync(exported, 'utf8')) as {
      users: Array<{ user_id: number; full_name: string }>;
    };
    expect(snapshot.users.find((u) => u.user_id === 2)?.full_name).toBe('Iago the Live');

    // --snapshot on a store that holds a realm is refused.
    const refused = await inProcess(['serve', '--db', db, '--snapshot', exported, '--port', '0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('already holds a realm');

    // import creates a new store from that snapshot; serving it needs no --snapshot.
    const copy = join(dir, 'copy.db');
    const imported = await inProcess(['import', '--snapshot', exported, '--db', copy]);
    expect(imported.code).toBe(0);
    expect((await inProcess(['import', '--snapshot', exported, '--db', copy])).code).toBe(2);
    const third = await serve(['--db', copy, '--port', '0', '--user', 'hamlet@zulip.com']);
    expect(third.zuliprc.email).toBe('hamlet@zulip.com');
    const hamlet = await zulip({
      username: third.zuliprc.email,
      apiKey: third.zuliprc.key,
      realm: third.zuliprc.site,
    });
    const users = (await hamlet.users.retrieve({})) as {
      members: Array<{ user_id: number; full_name: string }>;
    };
    expectValidResponse('get-users', 200, users);
    expect(users.members.find((u) => u.user_id === 2)?.full_name).toBe('Iago the Live');
    expect(await stop(third.child)).toBe(0);
  });

  it('seeds a new store from --snapshot, and logs requests and changes with --verbose', async () => {
    const db = join(dir, 'seeded.db');
    const started = await serve([
      '--db',
      db,
      '--port',
      '0',
      '--snapshot',
      'test/fixtures/dev-realm.json',
      '--verbose',
    ]);
    expect(started.output()).toContain('created from test/fixtures/dev-realm.json');
    const { email, key, site } = started.zuliprc;
    const response = await fetch(`${site}/api/v1/settings?twenty_four_hour_time=true`, {
      method: 'PATCH',
      headers: { authorization: `Basic ${Buffer.from(`${email}:${key}`).toString('base64')}` },
    });
    expect(response.status).toBe(200);
    await expect.poll(() => started.output()).toMatch(/^PATCH \/api\/v1\/settings 200 [\d.]+ms$/m);
    expect(started.output()).toMatch(/^change 1: [1-9]\d* event\(s\)$/m);
    expect(await stop(started.child)).toBe(0);
  });

  it('seeds a new store from an .ndjson --snapshot, read as import reads it', async () => {
    const file = join(dir, 'seed.ndjson');
    const simulated = await inProcess(['simulate', '--users', '12', '--messages', '40', '--out', file]);
    expect(simulated.code).toBe(0);
    const started = await serve(['--db', join(dir, 'seeded-ndjson.db'), '--port', '0', '--snapshot', file]);
    expect(started.output()).toContain(`created from ${file}`);
    expect(await stop(started.child)).toBe(0);
  });

  it('refuses a taken --port, bad options and an invalid snapshot with exit code 2', async () => {
    const busy = await serve(['--memory', '--port', '0']);
    const port = new URL(busy.zuliprc.site).port;
    const taken = await inProcess(['serve', '--memory', '--port', port]);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toContain(`Port ${port} on 127.0.0.1 is taken`);
    expect(await stop(busy.child)).toBe(0);

    const unknown = await inProcess(['serve', '--nope']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--nope'");
    expect((await inProcess(['frobnicate'])).code).toBe(2);
    expect((await inProcess(['serve', '--port', 'many'])).stderr).toContain('--port must be an integer');

    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'chat-realm.snapshot/1', users: 'nope' }));
    const invalid = await inProcess(['import', '--snapshot', bad, '--db', join(dir, 'bad.db')]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('Invalid realm snapshot');
    const empty = await inProcess(['export', '--db', join(dir, 'empty.db')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('holds no realm');
  });

  it('prints help for every command', async () => {
    for (const args of [
      ['--help'],
      ['serve', '--help'],
      ['export', '--help'],
      ['import', '--help'],
      ['help', 'serve'],
    ]) {
      const result = await inProcess(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/^Usage: chat-realm/);
    }
    // simulate writes its help itself: run it as a user would.
    const simulate = await runCli(['help', 'simulate']);
    expect(simulate.code).toBe(0);
    expect(simulate.stdout).toMatch(/^Usage: chat-realm simulate/);
  });
});

describe('command line basics', () => {
  it('prints help with no arguments, and the version with --version', async () => {
    const none = await inProcess([]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain('Usage: chat-realm <command>');
    const version = await inProcess(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('takes the port from PORT when --port is absent', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = String((blocker.address() as AddressInfo).port);
    const before = process.env['PORT'];
    process.env['PORT'] = port;
    try {
      const taken = await inProcess(['serve', '--memory']);
      expect(taken.code).toBe(2);
      expect(taken.stderr).toContain(`Port ${port} on 127.0.0.1 is taken`);
    } finally {
      if (before === undefined) delete process.env['PORT'];
      else process.env['PORT'] = before;
      blocker.close();
    }
  });
});
