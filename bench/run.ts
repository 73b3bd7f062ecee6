/**
 * `npm run bench`: runs the benchmarks and writes their results into bench/README.md (each bench
 * owns a section between markers) plus an SVG chart per bench. `--quick` runs fewer iterations.
 * Run with `node --expose-gc` (NODE_OPTIONS) for steadier memory figures; it works without.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { runFlagsNarrowBench } from './flags-narrow/bench';
import { durableMarkdown, groupCommitMarkdown, measureDurable, measureGroupCommit } from './group-commit';
import { runHttpBench } from './http';
import { measureScaleOut, scaleOutMarkdown } from './scale-out';
import { failoverMarkdown, measureFailover } from './lease-failover';
import { measurePlacement, placementMarkdown } from './placement';
import { runLiveQueuesBench } from './live-queues';
import { measureOpsScaling, opsScalingMarkdown } from './ops-scaling';
import { runPersistenceBench } from './persistence';
import { measureSmallChange, smallChangeMarkdown } from './small-change';
import { runSnapshotStreamBench } from './snapshot-stream';
import { runMessagesBench } from './messages';
import { runSendBench } from './send';
import { runCheckpointStallBench } from './checkpoint-run';
import { runSearchBench } from './search/bench';
import { runMoveTopicBench } from './move-topic';
import { runRegisterBench } from './register';

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

// `--only=flags,http,ops,persistence,small-change,group-commit,durable,scale-out,lease-failover,placement,live,snapshot,messages,send,register,checkpoint,search,move-topic` runs a subset.
const only = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const wanted = (name: string) => !only || only.includes(name);

if (wanted('flags')) {
  const flags = await runFlagsNarrowBench({ quick });
  process.stdout.write(`${flags.markdown}\n`);
  writeFileSync(new URL('./flags-narrow.svg', import.meta.url), flags.svg);
  writeSection('flags-narrow', flags.markdown);
}
if (wanted('http')) {
  const markdown = await runHttpBench({ quick, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${markdown}\n`);
  writeSection('http', markdown);
}
if (wanted('small-change')) {
  const markdown = smallChangeMarkdown(measureSmallChange());
  process.stdout.write(`${markdown}\n`);
  writeSection('small-change', markdown);
}
if (wanted('ops')) {
  const rows = measureOpsScaling({ quick, log: (line) => process.stderr.write(`${line}\n`) });
  const markdown = `## Every operation, small versus 100× larger organization\n\nBaseline: the same request on the small realm (100 users, 10 channels, 10,000 messages), in the same run; see bench/ops-scaling.md for the method and the analysis.\n\n${opsScalingMarkdown(rows)}`;
  process.stdout.write(`${markdown}\n`);
  writeSection('ops-scaling', markdown);
}
if (wanted('persistence')) {
  const markdown = await runPersistenceBench({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${markdown}\n`);
  writeSection('persistence', markdown);
}
if (wanted('group-commit')) {
  const markdown = groupCommitMarkdown(
    await measureGroupCommit({ quick, log: (line) => process.stderr.write(`${line}\n`) }),
  );
  process.stdout.write(`${markdown}\n`);
  writeSection('group-commit', markdown);
}
if (wanted('durable')) {
  const markdown = durableMarkdown(
    await measureDurable({ quick, log: (line) => process.stderr.write(`${line}\n`) }),
  );
  process.stdout.write(`${markdown}\n`);
  writeSection('durable', markdown);
}
if (wanted('scale-out')) {
  const markdown = scaleOutMarkdown(
    await measureScaleOut({ quick, log: (line) => process.stderr.write(`${line}\n`) }),
  );
  process.stdout.write(`${markdown}\n`);
  writeSection('scale-out', markdown);
}
// Issue 30: `serve --lease` failover and `serve --all-realms` placement (PostgreSQL only).
if (wanted('lease-failover') && process.env['DATABASE_URL']) {
  const markdown = failoverMarkdown(
    await measureFailover(process.env['DATABASE_URL'], quick ? 3 : 5, [3000, 500]),
  );
  process.stdout.write(`${markdown}\n`);
  writeSection('lease-failover', markdown);
}
if (wanted('placement') && process.env['DATABASE_URL']) {
  const markdown = placementMarkdown(await measurePlacement(process.env['DATABASE_URL'], 100, 4));
  process.stdout.write(`${markdown}\n`);
  writeSection('placement', markdown);
}
if (wanted('snapshot')) {
  const markdown = await runSnapshotStreamBench({ log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${markdown}\n`);
  writeSection('snapshot-stream', markdown);
}
if (wanted('messages')) {
  const markdown = await runMessagesBench({ quick, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${markdown}\n`);
  writeSection('messages', markdown);
}
if (wanted('send')) {
  const markdown = runSendBench({ quick, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${markdown}\n`);
  writeSection('send', markdown);
}
if (wanted('register')) {
  const markdown = await runRegisterBench({ quick, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${markdown}\n`);
  writeSection('register', markdown);
}
if (wanted('live')) {
  const markdown = await runLiveQueuesBench((line) => process.stderr.write(`${line}\n`));
  process.stdout.write(`${markdown}\n`);
  writeSection('live-queues', markdown);
}
if (wanted('checkpoint')) {
  const markdown = runCheckpointStallBench(quick);
  process.stdout.write(`${markdown}\n`);
  writeSection('checkpoint-stall', markdown);
}
if (wanted('search')) {
  const markdown = await runSearchBench({ quick, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${markdown}\n`);
  writeSection('search', markdown);
}
if (wanted('move-topic')) {
  const markdown = await runMoveTopicBench({ quick, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`${markdown}\n`);
  writeSection('move-topic', markdown);
}
