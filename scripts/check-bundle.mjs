#!/usr/bin/env node
/**
 * Bundles the built package (dist/, or an installed copy) the way an application would, with
 * esbuild for the browser and for a neutral platform (workers, Deno): an entry meant for those
 * runtimes must import nothing from Node. Bundles each operation of the core alone and fails if one
 * costs a third of the whole core or more (minified); prints minified and gzipped sizes of a few
 * operations, the largest one and the whole core; checks that `ChatRealm.op` after
 * `import * as ChatRealm from 'chat-realm'` bundles what `import { op }` does.
 *
 * Usage: node scripts/check-bundle.mjs [package dir, default: .] [--json]
 */
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

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
/** Shown by name (README's table); every operation of the core is measured and held to the rule. */
const SHOWN = [
  'getLinkifiers',
  'editChannel',
  'updateMessageFlagsForNarrow',
  'updateSettings',
  'sendMessage',
];
const operations = Object.entries(await import(pathToFileURL(core).href))
  .filter(([, v]) => typeof v === 'function' && 'def' in v)
  .map(([name]) => name);
const opSizes = {};
for (const op of operations) {
  const r = await bundle(`import { ${op} } from ${JSON.stringify(core)}; globalThis.f = ${op};`, 'browser');
  opSizes[op] = { min: r.min, gzip: r.gzip };
}
// The ChatRealm core as a namespace (README: `import * as ChatRealm from 'chat-realm'`): a member
// access must bundle exactly what the named import does (a named namespace *export* would not:
// esbuild keeps the whole namespace object, about the whole core, so the package exports none).
const viaNamespace = {};
for (const op of SHOWN) {
  const r = await bundle(
    `import * as ChatRealm from ${JSON.stringify(core)}; globalThis.f = ChatRealm.${op};`,
    'browser',
  );
  viaNamespace[op] = { min: r.min, gzip: r.gzip };
  if (r.min > opSizes[op].min + 64)
    failures.push(
      `ChatRealm.${op} bundles ${r.min} bytes, import { ${op} } ${opSizes[op].min}: not tree-shaken`,
    );
}
const wholeBundle = await bundle(`import * as m from ${JSON.stringify(core)}; globalThis.m = m;`, 'browser');
const whole = wholeBundle.min;
// One operation must cost less than a third of the whole (minified): it bundles its own code, not
// the other operations, the snapshot loader or zod's classic API.
for (const op of operations) {
  if (opSizes[op].min * 3 >= whole)
    failures.push(
      `import { ${op} } is ${opSizes[op].min} bytes minified: not under a third of the whole (${whole})`,
    );
}
if (operations.length < 20) failures.push(`only ${operations.length} operations found in ${core}`);
const largest = operations.reduce((a, b) => (opSizes[b].min > opSizes[a].min ? b : a));
const sizes = {};
for (const op of SHOWN) sizes[op] = opSizes[op];
if (!SHOWN.includes(largest)) sizes[`${largest} (largest operation)`] = opSizes[largest];
sizes['ChatRealm.editChannel (import * as ChatRealm)'] = viaNamespace.editChannel;
sizes['whole package'] = { min: wholeBundle.min, gzip: wholeBundle.gzip };

if (json) console.log(JSON.stringify({ ...sizes, operations: opSizes, namespace: viaNamespace }));
else {
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  for (const [label, s] of Object.entries(sizes)) {
    const share = label === 'whole package' ? '' : ` (${((100 * s.min) / whole).toFixed(0)}% of the whole)`;
    console.log(`${label}: ${kb(s.min)} minified, ${kb(s.gzip)} gzipped${share}`);
  }
}
if (failures.length) {
  console.error(`bundle check failed:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
if (!json)
  console.log(
    `bundle check: ${BROWSER_ENTRIES.join(', ')} bundle for browser and neutral with no Node imports; ` +
      `each of the ${operations.length} operations alone is under a third of the whole (largest: ${largest})`,
  );
