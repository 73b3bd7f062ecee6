/**
 * Installable from anywhere: runs the documentation's install blocks (marked `<!-- doc-test: install -->`,
 * README.md "Install") as written, in order, in one scratch project, and after each install imports the
 * package with `import` and `require` and runs its command line. The environment supplies what README
 * says to set: `CHAT_REALM_GIT` is a git URL of a bare clone of this checkout's committed HEAD (npm clones
 * it, installs its dev dependencies and builds dist/ through `prepare`), `CHAT_REALM_DIR` is this
 * checkout (npm links it; `prepare` finds dist/ up to date); README's placeholders
 * `git+https://<host>/<owner>/chat-realm.git` and `/path/to/chat-realm` stand for them. Port 9991 is replaced by a free port, and a
 * command that starts a server is stopped once it prints where it serves.
 *
 * npm runs with --prefer-offline (the cache is warm in CI), and the nested install of the git
 * dependency reuses this checkout's compiled better-sqlite3 (prebuild-install's local prebuilds)
 * instead of compiling SQLite again.
 *
 * Usage: node --import tsx scripts/check-install.ts
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { allBlocks, commandsOf, label } from '../test/docs/doc-blocks';
import { freePort } from '../test/support/free-port';

/** README's install commands name the repository with these placeholders. */
const GIT_PLACEHOLDER = 'git+https://<host>/<owner>/chat-realm.git';
const DIR_PLACEHOLDER = '/path/to/chat-realm';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const tmp = mkdtempSync(join(tmpdir(), 'chat-realm-install-'));
const started = Date.now();
const seconds = () => `${((Date.now() - started) / 1000).toFixed(0)} s`;

/** Runs a command with bash; a server (`… serving … at http://…`) is stopped with SIGTERM once ready. */
function run(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ ok: boolean; log: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', command], {
      cwd,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let log = '';
    let served = false;
    const stop = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(() => {
      log += '\n[timed out after 20 minutes]';
      stop('SIGKILL');
    }, 20 * 60_000);
    child.stdout.on('data', (d: Buffer) => {
      log += d.toString();
      if (!served && / serving .* at http:\/\/\S+/.test(log)) {
        served = true;
        setTimeout(() => stop('SIGTERM'), 300);
      }
    });
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ ok: code === 0 || (served && code === null), log });
    });
  });
}

/** What a user does next: import every way, and run the command line. */
function useIt(project: string, env: NodeJS.ProcessEnv): void {
  const checks: Array<[string, string[]]> = [
    [
      'import',
      [
        '--input-type=module',
        '-e',
        "const m = await import('chat-realm'); if (typeof m.createRealm !== 'function') process.exit(1);",
      ],
    ],
    [
      'import chat-realm/server',
      [
        '--input-type=module',
        '-e',
        "const m = await import('chat-realm/server'); if (typeof m.createFetchHandler !== 'function') process.exit(1);",
      ],
    ],
    [
      'require',
      ['-e', "const m = require('chat-realm'); if (typeof m.createRealm !== 'function') process.exit(1);"],
    ],
    [
      'require chat-realm/host',
      ['-e', "const m = require('chat-realm/host'); if (typeof m.openRealm !== 'function') process.exit(1);"],
    ],
  ];
  for (const [name, args] of checks) {
    execFileSync(process.execPath, args, { cwd: project, env, stdio: 'inherit' });
    console.log(`✓ ${name}`);
  }
  const version = execFileSync('npx', ['chat-realm', '--version'], {
    cwd: project,
    env,
    encoding: 'utf8',
  }).trim();
  const expected = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
  if (version !== expected) throw new Error(`npx chat-realm --version printed ${version}, not ${expected}`);
  console.log(`✓ npx chat-realm --version: ${version}`);
}

try {
  // The git URL: a bare clone of the committed tree (what a push would publish).
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (dirty.trim()) console.log('note: uncommitted changes are not part of the git URL install (HEAD is)');
  execFileSync('git', ['clone', '--quiet', '--bare', ROOT, join(tmp, 'chat-realm.git')]);

  // better-sqlite3's install script looks for a local prebuild before downloading or compiling.
  const sqlite = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8')) as {
    version: string;
  };
  const prebuilds = join(tmp, 'prebuilds');
  mkdirSync(prebuilds);
  const prebuild = `better-sqlite3-v${sqlite.version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', [
    '-czf',
    join(prebuilds, prebuild),
    '-C',
    join(ROOT, 'node_modules/better-sqlite3'),
    'build/Release/better_sqlite3.node',
  ]);

  const project = join(tmp, 'consumer');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }, null, 2));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CHAT_REALM_GIT: `git+file://${join(tmp, 'chat-realm.git')}`,
    CHAT_REALM_DIR: ROOT,
    npm_config_prefer_offline: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_better_sqlite3_local_prebuilds: prebuilds,
  };

  const blocks = allBlocks(ROOT).filter((b) => b.directives.has('install'));
  if (blocks.length === 0) throw new Error('no install blocks in the documentation');
  for (const block of blocks) {
    const port = await freePort();
    // README writes the places as placeholders (the repository's URL is the reader's to fill in).
    const code = block.code
      .replace(/\b9991\b/g, String(port))
      .replaceAll(GIT_PLACEHOLDER, env['CHAT_REALM_GIT']!)
      .replaceAll(DIR_PLACEHOLDER, ROOT);
    for (const command of commandsOf(code)) {
      console.log(`${label(block)} $ ${command.split('\n')[0]}`);
      const r = await run(command, project, env);
      if (!r.ok) throw new Error(`${label(block)}: \`${command}\` failed:\n${r.log}`);
      console.log(`✓ (${seconds()})`);
    }
    useIt(project, env);
  }
  console.log(
    `installable from a git URL and from a folder: ${blocks.length} install blocks ran (${seconds()})`,
  );
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
