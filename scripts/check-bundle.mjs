#!/usr/bin/env node
/**
 * Bundles the built package (dist/, or an installed copy) the way an application would, with
 * esbuild for the browser and for a neutral platform (workers, Deno): an entry meant for those
 * runtimes must import nothing from Node. Prints minified and gzipped sizes of one operation and
 * of the whole core, and fails if one operation costs a third of the whole or more.
 *
 * Usage: node scripts/check-bundle.mjs [package dir, default: .] [--json]
 */
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const json = args.includes('--json');
const root = resolve(args.find((a) => !a.startsWith('--')) ?? '.');

/** Entry points meant for browsers and workers (the others need Node: sqlite, pg, the CLI). */
const BROWSER_ENTRIES = ['index', 'internal', 'testing', 'host', 'stores/memory'];
// `chat-realm/server` also carries the Node adapter (node:http); its fetch handler alone is portable.

async function bundle(contents, platform) {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform,
    // A neutral build resolves like a modern bundler: ESM first.
    ...(platform === 'neutral' ? { mainFields: ['module', 'main'], conditions: ['import'] } : {}),
    // fast-check is an optional peer of chat-realm/testing, imported only by chat-realm/testing/arbitraries.
    external: ['fast-check'],
    logLevel: 'silent',
    metafile: true,
  });
  const code = result.outputFiles[0].contents;
  const nodeInputs = Object.keys(result.metafile.inputs).filter((p) => /(^|\/)node:|^\(disabled\)/.test(p));
  return { min: code.length, gzip: gzipSync(code).length, nodeInputs };
}

const failures = [];
for (const entry of BROWSER_ENTRIES) {
  const spec = `${root}/dist/${entry}.js`;
  for (const platform of ['browser', 'neutral']) {
    try {
      const r = await bundle(`import * as m from ${JSON.stringify(spec)}; globalThis.m = m;`, platform);
      if (r.nodeInputs.length) failures.push(`${entry} (${platform}) pulls in ${r.nodeInputs.join(', ')}`);
    } catch (error) {
      const msgs = (error.errors ?? [error]).map((e) => e.text ?? String(e)).slice(0, 3);
      failures.push(`${entry} (${platform}): ${msgs.join('; ')}`);
    }
  }
}

const core = `${root}/dist/index.js`;
const sizes = {};
for (const [label, contents] of [
  ['getLinkifiers', `import { getLinkifiers } from ${JSON.stringify(core)}; globalThis.f = getLinkifiers;`],
  ['editChannel', `import { editChannel } from ${JSON.stringify(core)}; globalThis.f = editChannel;`],
  ['whole package', `import * as m from ${JSON.stringify(core)}; globalThis.m = m;`],
]) {
  const r = await bundle(contents, 'browser');
  sizes[label] = { min: r.min, gzip: r.gzip };
}
const whole = sizes['whole package'].min;
// getLinkifiers (no zod schema) is held under a third of the whole; editChannel is not there yet
// (zod's classic API is most of it): reported, and enforced with STRICT_BUNDLE=1.
for (const op of ['getLinkifiers', 'editChannel']) {
  if (sizes[op].min * 3 < whole) continue;
  const msg = `import { ${op} } is ${sizes[op].min} bytes minified: not under a third of the whole (${whole})`;
  if (op === 'getLinkifiers' || process.env.STRICT_BUNDLE === '1') failures.push(msg);
  else console.warn(`warning: ${msg}`);
}

if (json) console.log(JSON.stringify(sizes));
else {
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  for (const [label, s] of Object.entries(sizes))
    console.log(`${label}: ${kb(s.min)} minified, ${kb(s.gzip)} gzipped`);
}
if (failures.length) {
  console.error(`bundle check failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
if (!json)
  console.log(
    `bundle check: ${BROWSER_ENTRIES.join(', ')} bundle for browser and neutral with no Node imports`,
  );
