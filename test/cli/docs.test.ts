/**
 * The curl and zulip-js examples of docs/hosting.md, run as written against `chat-realm serve`
 * (the demo organization; only the port differs from the documented 9991).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = readFileSync(join(ROOT, 'docs/hosting.md'), 'utf8');

/** The fenced block right after `<!-- doc-test: name -->`. */
function block(name: string): string {
  const at = DOC.indexOf(`<!-- doc-test: ${name} -->`);
  if (at < 0) throw new Error(`docs/hosting.md has no doc-test ${name}`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(DOC.slice(at));
  if (!match) throw new Error(`no code block after doc-test ${name}`);
  return match[1]!;
}

const hasCurl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

let child: ChildProcess;
let site = '';
const dir = mkdtempSync(join(tmpdir(), 'chat-realm-doc-'));

beforeAll(async () => {
  child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--memory', '--port', '0'],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  let out = '';
  site = await new Promise<string>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const found = /^site=(.+)$/m.exec(out)?.[1];
      if (found) resolve(found);
    });
  });
  child.removeAllListeners('exit');
  writeFileSync(join(dir, 'zuliprc'), /\[api\][\s\S]*?site=.+\n/.exec(out)![0]);
});

afterAll(async () => {
  if (child && child.exitCode === null) {
    await new Promise((resolve) => {
      child.on('exit', resolve);
      child.kill('SIGTERM');
    });
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('docs/hosting.md', () => {
  it.skipIf(!hasCurl)('the curl example works as written', () => {
    const script = block('curl').replaceAll('http://127.0.0.1:9991', site);
    const lines = execFileSync('bash', ['-c', script], { encoding: 'utf8' });
    const [me, patched] = lines.replace(/}{/g, '}\n{').trim().split('\n');
    expect(JSON.parse(me!)).toMatchObject({ result: 'success', email: 'iago@zulip.com', role: 200 });
    expect(JSON.parse(patched!)).toEqual({ result: 'success', msg: '' });
  });

  it('the zulip-js example works as written, and prints what its comments say', () => {
    const code = block('zulip-js');
    // Inside node_modules so that `import 'zulip-js'` resolves; run from the zuliprc's folder.
    const where = join(ROOT, 'node_modules', '.cache', `chat-realm-doc-test-${process.pid}`);
    mkdirSync(where, { recursive: true });
    try {
      writeFileSync(join(where, 'example.mjs'), code);
      const output = execFileSync(process.execPath, [join(where, 'example.mjs')], {
        cwd: dir,
        encoding: 'utf8',
      });
      const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.+)$/gm)].map((m) => m[1]);
      expect(expected.length).toBe(2);
      expect(output.trim().split('\n')).toEqual(expected);
    } finally {
      rmSync(where, { recursive: true, force: true });
    }
  });
});
