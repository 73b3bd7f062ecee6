// Prints one closing line for CI from vitest's JSON reports: "N passed, N failed, N skipped", bare,
// the plain form CI reads to know that tests ran (vitest's own summary is not a format it reads).
// Other lines of .ci/run avoid shapes that CI could take for another runner's (for example go test's
// "ok  <package>" lines), which once made a passing run count as one that ran no test.
// A report that is missing, unreadable or counts no test fails the run.
import { readFileSync } from 'node:fs';

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node scripts/ci-summary.mjs REPORT.json [REPORT.json …]');
  process.exit(2);
}
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  let report;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.error(`no test report at ${file}: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
if (passed === 0 || failed > 0) process.exit(1);
