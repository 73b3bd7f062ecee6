/**
 * Every fenced code block of README.md, docs/**.md and bench/README.md, as written, against the
 * built package (dist/): the conventions are in docs/testing.md ("Code blocks in the documentation").
 *
 * - ```ts / ```js blocks are type-checked (strict, against dist's declarations) and run with Node in
 *   a scratch project where `chat-realm` is installed (a link to this checkout, so its `exports`
 *   resolve to dist/). A block that imports `describe`/`it` from vitest is a test file: vitest runs it.
 * - ```sh blocks run in that scratch project (or in this checkout when marked `checkout`), one
 *   command at a time; a command that starts a server is stopped (SIGTERM) once it prints where it
 *   serves, and must then exit with 0.
 * - ```json / ```jsonc blocks must parse (jsonc: comments allowed). Other blocks are output or prose.
 * - In every block, the ports 9991 and 9992 are replaced by a free port, so runs never collide.
 *
 * dist/ comes from `npm ci` (prepare) or `npm run build`. Without it the blocks are only
 * type-checked (against the sources) and not run, with a warning; in CI (`CI` set) that fails.
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { DIRECTIVES, allBlocks, commandsOf, kindOf, label, programs, type DocBlock } from './doc-blocks';
import { freePort } from '../support/free-port';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const HAS_DIST = ['dist/index.js', 'dist/index.d.ts', 'dist/cli/main.js'].every((f) =>
  existsSync(join(ROOT, f)),
);
const IN_CI = Boolean(process.env['CI']);

const blocks = allBlocks(ROOT);
const chains = programs(blocks);

/** Newest modification time under a folder (to warn about a dist/ older than the sources). */
function newest(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((t, e) => {
    const p = join(dir, e.name);
    return Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }, 0);
}

/**
 * A scratch project in which `chat-realm` is installed: node_modules holds a link to this checkout
 * (the package, resolved through its `exports` to dist/), its bin, and links to this checkout's
 * dependencies (zulip-js, better-sqlite3, vitest... that the blocks use).
 */
function scratchProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chat-realm-doc-blocks-'));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'doc-blocks', private: true, type: 'module' }),
  );
  const modules = join(dir, 'node_modules');
  mkdirSync(join(modules, '.bin'), { recursive: true });
  const ours = join(ROOT, 'node_modules');
  for (const name of readdirSync(ours)) {
    if (name.startsWith('.')) continue;
    symlinkSync(join(ours, name), join(modules, name), 'dir');
  }
  for (const name of readdirSync(join(ours, '.bin'))) {
    symlinkSync(join(ours, '.bin', name), join(modules, '.bin', name));
  }
  symlinkSync(ROOT, join(modules, 'chat-realm'), 'dir');
  symlinkSync(join(ROOT, 'dist/cli/main.js'), join(modules, '.bin', 'chat-realm'));
  return dir;
}

const project = scratchProject();
let runs = 0;
afterAll(() => rmSync(project, { recursive: true, force: true }));

const withPort = (code: string, port: number): string => code.replace(/\b999[12]\b/g, String(port));

const isTestFile = (code: string): boolean =>
  /^import\s*\{[^}]*\b(describe|it|test)\b[^}]*\}\s*from\s*'vitest'/m.test(code);

const extensionOf = (b: DocBlock): string => (['js', 'javascript', 'mjs'].includes(b.lang) ? 'mjs' : 'mts');

/** A chain's source: its blocks in order (a module, so `await` works at the top level). */
const sourceOf = (chain: readonly DocBlock[]): string =>
  `${chain.map((b) => b.code).join('\n')}\nexport {};\n`;

// ---------------------------------------------------------------------------------------------
// Type-checking: one program over every ts/js chain, each a module of the scratch project.

const codeChains = chains.filter((c) => kindOf(c[0]!) === 'code' && !skipped(c));

function skipped(chain: readonly DocBlock[]): boolean {
  return chain.some((b) => b.directives.has('skip') || b.directives.has('install'));
}

let typeErrors: Map<DocBlock[], string[]> | undefined;

function typeCheck(): Map<DocBlock[], string[]> {
  if (typeErrors) return typeErrors;
  const files = new Map<string, DocBlock[]>();
  codeChains.forEach((chain, i) => {
    const last = chain[chain.length - 1]!;
    files.set(
      join(project, `check-${i}.${isTestFile(sourceOf(chain)) ? 'test.' : ''}${extensionOf(last)}`),
      chain,
    );
  });
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    allowJs: true,
    checkJs: true,
    skipLibCheck: true,
    esModuleInterop: true,
    resolveJsonModule: true,
    noEmit: true,
    // Without dist/, `chat-realm` imports are checked against the sources (tsconfig's paths).
    ...(HAS_DIST
      ? {}
      : {
          baseUrl: ROOT,
          paths: {
            'chat-realm': ['./src/index.ts'],
            'chat-realm/internal': ['./src/internal.ts'],
            'chat-realm/testing': ['./src/testing/index.ts'],
            'chat-realm/testing/arbitraries': ['./src/testing/arbitraries.ts'],
            'chat-realm/host': ['./src/host/index.ts'],
            'chat-realm/server': ['./src/server/index.ts'],
            'chat-realm/stores/*': ['./src/stores/*/index.ts'],
          },
        }),
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    const chain = files.get(name);
    return chain ? ts.createSourceFile(name, sourceOf(chain), version, true) : read(name, version, ...rest);
  };
  const exists = host.fileExists.bind(host);
  host.fileExists = (f) => files.has(f) || exists(f);
  host.getCurrentDirectory = () => project;
  const program = ts.createProgram([...files.keys()], options, host);
  typeErrors = new Map();
  for (const [name, chain] of files) {
    const sf = program.getSourceFile(name)!;
    const found = [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]
      // A JavaScript block may import a package without types (zulip-js): it is `any`, as in a JS project.
      .filter((d) => !(name.endsWith('.mjs') && d.code === 7016))
      .map((d) => {
        const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line;
        return `${whereIs(chain, line)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    typeErrors.set(chain, found);
  }
  return typeErrors;
}

/** `file:line` of a line of a chain's source. */
function whereIs(chain: readonly DocBlock[], line: number): string {
  let at = line;
  for (const b of chain) {
    const n = b.code.split('\n').length;
    if (at < n) return `${b.file}:${b.line + 1 + at}`;
    at -= n;
  }
  return label(chain[chain.length - 1]!);
}

// ---------------------------------------------------------------------------------------------
// Running.

interface Ran {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
  /** The address a server printed before it was stopped. */
  readonly served?: string;
}

/**
 * Runs a command (bash), in its own process group. When it prints where it serves
 * (`… serving … at http://…`, or `site=`) it is a server: it is stopped with SIGTERM then.
 */
function run(
  command: string,
  cwd: string,
  {
    timeoutMs = 45_000,
    args = [] as string[],
    program = 'bash',
    port = undefined as number | undefined,
  } = {},
): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(program, program === 'bash' ? ['-e', '-o', 'pipefail', '-c', command] : args, {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      // PORT: a command that serves without --port (README: PORT is read when the flag is absent)
      // gets this block's free port, never a default another test may hold.
      env: {
        ...process.env,
        npm_config_update_notifier: 'false',
        NO_COLOR: '1',
        ...(port === undefined ? {} : { PORT: String(port) }),
      },
    });
    let out = '';
    let err = '';
    let served: string | undefined;
    const stop = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      err += `\n[doc-blocks: timed out after ${timeoutMs} ms]`;
      stop('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const ready = / serving .* at (http:\/\/\S+)/.exec(out);
      if (ready && served === undefined) {
        served = ready[1]!;
        // The zuliprc follows the ready line: let it arrive before stopping.
        setTimeout(() => stop('SIGTERM'), 300);
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, out, err, ...(served === undefined ? {} : { served }) });
    });
  });
}

/** The demo organization, served from memory on `port`, its zuliprc saved in `cwd`. */
async function demoServer(port: number, cwd: string): Promise<() => Promise<void>> {
  const child = spawn(
    process.execPath,
    [join(project, 'node_modules/.bin/chat-realm'), 'serve', '--memory', '--port', String(port)],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  await new Promise<void>((ready, fail) => {
    child.on('exit', (code) => fail(new Error(`chat-realm serve exited with ${code}`)));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const rc = /\[api\][\s\S]*?site=.+\n/.exec(out);
      if (rc) {
        writeFileSync(join(cwd, 'zuliprc'), rc[0]);
        ready();
      }
    });
  });
  child.removeAllListeners('exit');
  return () =>
    new Promise((stopped) => {
      if (child.exitCode !== null) return stopped();
      child.on('exit', () => stopped());
      child.kill('SIGTERM');
    });
}

/** The `// text` after each `console.log(…);` of a block marked `prints`. */
const expectedOutput = (code: string): string[] =>
  [...code.matchAll(/console\.log\(.*\);\s*\/\/ (.+)$/gm)].map((m) => m[1]!.trim());

function newWorkDir(): string {
  const dir = join(project, `run-${runs++}`);
  mkdirSync(dir);
  return dir;
}

async function runCode(chain: readonly DocBlock[]): Promise<void> {
  const last = chain[chain.length - 1]!;
  const port = await freePort();
  const cwd = newWorkDir();
  const source = withPort(sourceOf(chain), port);
  if (isTestFile(source)) {
    // A test file: vitest runs it, in the scratch project (no config: vitest's defaults).
    writeFileSync(join(cwd, `block.test.${extensionOf(last)}`), source);
    const r = await run('', cwd, {
      program: process.execPath,
      args: [join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', '--root', cwd],
    });
    expect(r.code, `${label(last)} under vitest:\n${r.out}\n${r.err}`).toBe(0);
    return;
  }
  const js =
    extensionOf(last) === 'mjs'
      ? source
      : ts.transpileModule(source, {
          compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
        }).outputText;
  writeFileSync(join(cwd, 'block.mjs'), js);
  const stop = chain.some((b) => b.directives.has('server')) ? await demoServer(port, cwd) : undefined;
  try {
    const r = await run('', cwd, { program: process.execPath, args: ['block.mjs'] });
    expect(r.code, `${label(last)} exited with ${r.code}:\n${r.err}\n${r.out}`).toBe(0);
    if (chain.some((b) => b.directives.has('prints'))) {
      const expected = chain.flatMap((b) => expectedOutput(b.code));
      expect(expected.length).toBeGreaterThan(0);
      expect(r.out.trim().split('\n')).toEqual(expected);
    }
  } finally {
    await stop?.();
  }
}

async function runShell(chain: readonly DocBlock[]): Promise<void> {
  const last = chain[chain.length - 1]!;
  const port = await freePort();
  const inCheckout = chain.some((b) => b.directives.has('checkout'));
  const cwd = inCheckout ? ROOT : newWorkDir();
  const stop = chain.some((b) => b.directives.has('server')) ? await demoServer(port, cwd) : undefined;
  try {
    for (const command of commandsOf(withPort(chain.map((b) => b.code).join('\n'), port))) {
      const r = await run(command, cwd, { timeoutMs: 60_000, port });
      const what = `${label(last)}: \`${command}\``;
      // A server stopped once it printed its address: 0, or the signal itself (through npx's npm).
      const ok = r.code === 0 || (r.served !== undefined && r.code === null);
      expect(ok, `${what} exited with ${r.code}:\n${r.err}\n${r.out}`).toBe(true);
      // Against a server, an error body is a failure even though curl exits with 0.
      expect(r.out, `${what} answered an error`).not.toMatch(/"result":\s*"error"/);
      if (stop && /^curl\b/.test(command)) expectZulipSuccess(command, r.out, what);
    }
  } finally {
    await stop?.();
  }
}

/**
 * A curl command against the demo server answers one JSON object with `result: "success"`, and an
 * answer that names a user (`email`, as GET /users/me does) names the one the command signed in as.
 */
function expectZulipSuccess(command: string, out: string, what: string): void {
  const body = JSON.parse(out) as { result?: unknown; email?: unknown };
  expect(body.result, `${what} answered ${out}`).toBe('success');
  const user = /-\S*u\s+([^:\s]+):/.exec(command)?.[1];
  if (user !== undefined && body.email !== undefined) expect(body.email, what).toBe(user);
}

/** JSON with comments (`//` to the end of a line, outside strings) and trailing commas. */
function parseJsonc(text: string): unknown {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else out += c;
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
}

// ---------------------------------------------------------------------------------------------

const tally = {
  run: 0,
  typeCheckedOnly: 0,
  json: 0,
  output: 0,
  install: [] as string[],
  skip: [] as string[],
};

describe('code blocks of the documentation', () => {
  if (!HAS_DIST) {
    const message =
      'dist/ is missing: the documentation blocks are type-checked against the sources but not run (npm run build)';
    if (IN_CI) it('needs dist/ (npm ci builds it)', () => expect.fail(message));
    else console.warn(`code-blocks.test.ts: ${message}`);
  } else if (newest(join(ROOT, 'src')) > statSync(join(ROOT, 'dist/index.js')).mtimeMs) {
    console.warn('code-blocks.test.ts: dist/ is older than src/: the blocks run against it (npm run build)');
  }

  it('finds the blocks, and every marker is understood', () => {
    expect(blocks.length).toBeGreaterThan(25);
    for (const b of blocks) {
      for (const d of b.directives) {
        expect(DIRECTIVES as readonly string[], `${label(b)}: unknown doc-test directive '${d}'`).toContain(
          d,
        );
      }
      if (b.directives.has('skip')) expect(b.reason, `${label(b)}: a skip says why`).toBeTruthy();
    }
  });

  it('the blocks that run import every entry point of the package', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: object };
    const entries = Object.keys(pkg.exports)
      .filter((p) => !p.endsWith('.json'))
      .map((p) => (p === '.' ? 'chat-realm' : `chat-realm/${p.slice(2)}`));
    const imported = new Set(
      codeChains.flatMap((c) => [...sourceOf(c).matchAll(/from '(chat-realm[^']*)'/g)].map((m) => m[1]!)),
    );
    expect(entries.filter((e) => !imported.has(e))).toEqual([]);
  });

  // README's examples are what a newcomer copies first: each states its result, and the run checks it
  // (`prints`: every `console.log(…); // text` prints that text), not only that it runs.
  it('every README example states what it prints, and is checked on it', () => {
    const unchecked = codeChains
      .filter((c) => c.some((b) => b.file === 'README.md'))
      .filter((c) => !c.some((b) => b.directives.has('prints')) && !isTestFile(sourceOf(c)))
      .map((c) => label(c[c.length - 1]!));
    expect(unchecked).toEqual([]);
    for (const chain of codeChains.filter((c) => c.some((b) => b.directives.has('prints')))) {
      expect(chain.flatMap((b) => expectedOutput(b.code)).length, label(chain[0]!)).toBeGreaterThan(0);
    }
  });

  it('every JSON block parses', () => {
    for (const b of blocks.filter((x) => kindOf(x) === 'json')) {
      tally.json++;
      expect(() => (b.lang === 'jsonc' ? parseJsonc(b.code) : JSON.parse(b.code)), label(b)).not.toThrow();
    }
  });

  // Each block runs in its own processes and folder: several at once.
  describe.concurrent('blocks', () => {
    for (const chain of chains) {
      const last = chain[chain.length - 1]!;
      const kind = kindOf(last);
      const name = chain.length > 1 ? `${label(chain[0]!)} … ${label(last)}` : label(last);
      if (kind === 'output' || kind === 'json') {
        if (kind === 'output') tally.output++;
        continue;
      }
      if (chain.some((b) => b.directives.has('install'))) {
        tally.install.push(name);
        continue;
      }
      if (chain.some((b) => b.directives.has('skip'))) {
        tally.skip.push(`${name}: ${chain.find((b) => b.reason)?.reason ?? ''}`);
        continue;
      }
      if (kind === 'code') {
        it(`${name}: type-checks${HAS_DIST ? ' and runs' : ''}`, async () => {
          expect(typeCheck().get(chain)).toEqual([]);
          if (!HAS_DIST) return void tally.typeCheckedOnly++;
          await runCode(chain);
          tally.run++;
        });
      } else {
        it.skipIf(!HAS_DIST)(`${name}: runs`, async () => {
          await runShell(chain);
          tally.run++;
        });
      }
    }
  });

  afterAll(() => {
    const lines = [
      `doc blocks: ${tally.run} run, ${tally.typeCheckedOnly} type-checked only (no dist/), ${tally.json} JSON parsed, ${tally.output} output/prose left alone`,
      `doc blocks run by npm run check:package (install): ${tally.install.length}`,
      ...tally.install.map((s) => `  - ${s}`),
      `doc blocks skipped: ${tally.skip.length}`,
      ...tally.skip.map((s) => `  - ${s}`),
    ];
    console.log(lines.join('\n'));
  });
});
