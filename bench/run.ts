/**
 * `npm run bench`: runs the benchmarks and writes their results into bench/README.md (each bench
 * owns a section between markers) plus an SVG chart per bench. `--quick` runs fewer iterations.
 * Run with `node --expose-gc` (NODE_OPTIONS) for steadier memory figures; it works without.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { runFlagsNarrowBench } from './flags-narrow/bench';

const quick = process.argv.includes('--quick');
const readme = new URL('./README.md', import.meta.url);

function writeSection(name: string, markdown: string): void {
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const block = `${start}\n${markdown}\n${end}`;
  let text = existsSync(readme)
    ? readFileSync(readme, 'utf8')
    : '# Benchmarks\n\nWritten by `npm run bench` (bench/run.ts).\n';
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  text =
    a >= 0 && b > a
      ? text.slice(0, a) + block + text.slice(b + end.length)
      : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(readme, text);
}

const flags = await runFlagsNarrowBench({ quick });
process.stdout.write(`${flags.markdown}\n`);
writeFileSync(new URL('./flags-narrow.svg', import.meta.url), flags.svg);
writeSection('flags-narrow', flags.markdown);
