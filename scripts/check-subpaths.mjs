// Installs the packed tarball into a scratch project and imports every subpath export with
// `import` and with `require`, so a broken exports map or a missing build file fails CI.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const [tarball, tmp] = process.argv.slice(2);
const project = join(tmp, 'consumer');
mkdirSync(project, { recursive: true });
writeFileSync(
  join(project, 'package.json'),
  JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
);
execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--omit=peer', tarball], {
  cwd: project,
  stdio: 'ignore',
});
// The optional peers (drivers, fast-check) come from this checkout, linked rather than rebuilt.
for (const peer of ['better-sqlite3', 'pg', 'fast-check', '@electric-sql/pglite']) {
  const from = join(process.cwd(), 'node_modules', peer);
  const to = join(project, 'node_modules', peer);
  mkdirSync(dirname(to), { recursive: true });
  if (!existsSync(to)) symlinkSync(from, to, 'dir');
}
const pkg = JSON.parse(readFileSync(join(project, 'node_modules/chat-realm/package.json'), 'utf8'));
const subpaths = Object.keys(pkg.exports).filter((p) => !p.endsWith('.json'));
let failed = 0;
for (const sub of subpaths) {
  const spec = sub === '.' ? 'chat-realm' : `chat-realm/${sub.slice(2)}`;
  for (const mode of ['import', 'require']) {
    const code =
      mode === 'import' ? `await import(${JSON.stringify(spec)})` : `require(${JSON.stringify(spec)})`;
    const file = join(project, mode === 'import' ? 'check.mjs' : 'check.cjs');
    writeFileSync(
      file,
      mode === 'import'
        ? `const m = ${code}; if (!Object.keys(m).length) throw new Error('empty');`
        : `const m = ${code}; if (!Object.keys(m).length) throw new Error('empty');`,
    );
    try {
      execFileSync('node', [file], { cwd: project, stdio: 'pipe' });
      console.log(`✓ ${mode.padEnd(7)} ${spec}`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${mode.padEnd(7)} ${spec}\n${String(e.stderr ?? e)}`);
    }
  }
}
if (failed > 0) process.exit(1);

// No dual-package trap: an error thrown by the CommonJS build is instanceof the ESM build's class.
const cross = join(project, 'cross.mjs');
writeFileSync(
  cross,
  `import { createRequire } from 'node:module';
import { SnapshotError } from 'chat-realm';
const cjs = createRequire(import.meta.url)('chat-realm');
let caught;
try { cjs.createRealm({ format: 'nope' }); } catch (e) { caught = e; }
if (!(caught instanceof SnapshotError)) throw new Error('CJS SnapshotError is not instanceof the ESM class');
if (!(caught instanceof cjs.SnapshotError)) throw new Error('not instanceof its own class');
`,
);
try {
  execFileSync('node', [cross], { cwd: project, stdio: 'pipe' });
  console.log('✓ errors are instanceof across the ESM and CommonJS builds');
} catch (e) {
  console.log(`FAIL errors across builds\n${String(e.stderr ?? e)}`);
  process.exit(1);
}
