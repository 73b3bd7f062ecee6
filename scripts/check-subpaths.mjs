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
      console.log(`ok   ${mode.padEnd(7)} ${spec}`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${mode.padEnd(7)} ${spec}\n${String(e.stderr ?? e)}`);
    }
  }
}
if (failed > 0) process.exit(1);
