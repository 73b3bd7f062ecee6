// `npm run build` (always builds) and `prepare` (`--if-changed`). npm runs `prepare` on `npm ci` and
// `npm install` in this checkout, on `npm pack`, and in a folder or git checkout that another project
// installs. A build takes a minute, so `--if-changed` keeps dist/ when it was built from exactly the
// current inputs: a hash of src/, the build and TypeScript configs, package.json and the lockfile,
// recorded in dist/.build-inputs after each build (tsup's `clean` removes it with the old dist/).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const STAMP = 'dist/.build-inputs';

function files(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]))
    .sort();
}

function inputsHash() {
  const hash = createHash('sha256');
  for (const file of [
    ...files('src'),
    'tsup.config.ts',
    'tsconfig.json',
    'package.json',
    'package-lock.json',
  ]) {
    if (!existsSync(file)) continue;
    hash.update(`${file}\0`).update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

const before = inputsHash();
if (process.argv.includes('--if-changed') && existsSync(STAMP) && readFileSync(STAMP, 'utf8') === before) {
  console.log('dist/ is up to date with the sources (delete dist/ or run npm run build to rebuild)');
} else {
  const tsup = join('node_modules', 'tsup', 'dist', 'cli-default.js');
  if (!existsSync(tsup)) {
    console.error('building dist/ needs the dev dependencies: run `npm ci` in this folder first');
    process.exit(1);
  }
  // Under `prepare` (npm ci, npm install) the thousand lines of tsup's file listings would bury
  // npm's own output: they are kept back, and printed only when the build fails.
  const quiet = process.argv.includes('--if-changed');
  const started = Date.now();
  try {
    execFileSync(process.execPath, [tsup], {
      stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    if (quiet) {
      process.stdout.write(error.stdout ?? '');
      process.stderr.write(error.stderr ?? '');
    }
    console.error("building dist/ failed (the output above is tsup's)");
    process.exit(1);
  }
  writeFileSync(STAMP, before);
  if (quiet)
    console.log(
      `built dist/ in ${Math.round((Date.now() - started) / 1000)} s (npm run build shows the files)`,
    );
}
