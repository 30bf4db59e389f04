// Sums the vitest JSON reports (test-report.json) of every workspace that has a test script.
// Usage: node scripts/sum-test-reports.mjs <label> <run-start-epoch-ms>
// Prints "<label>: N passed, N failed" and writes "N N" to stdout's last line for the caller.
// `pnpm test` (scripts/test.mjs) imports sumTestReports to print the same total.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Sums the reports written since `since` (epoch ms): `{ passed, failed, notes }`. A package
 * without a report from this run counts as one failure unless `requireAll` is false.
 */
export function sumTestReports(since, { requireAll = true } = {}) {
  let passed = 0;
  let failed = 0;
  const notes = [];
  for (const group of ['packages', 'apps']) {
    const groupDir = join(root, group);
    if (!existsSync(groupDir)) continue;
    for (const name of readdirSync(groupDir)) {
      const dir = join(groupDir, name);
      const manifestPath = join(dir, 'package.json');
      if (!existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
      if (!manifest.scripts?.test) continue;
      const reportPath = join(dir, 'test-report.json');
      if (!existsSync(reportPath) || statSync(reportPath).mtimeMs < since) {
        if (!requireAll) continue;
        failed += 1;
        notes.push(
          `${manifest.name}: no test report from this run (the test command crashed or did not run)`,
        );
        continue;
      }
      const report = JSON.parse(readFileSync(reportPath, 'utf8'));
      passed += report.numPassedTests ?? 0;
      failed += report.numFailedTests ?? 0;
      // A test file that fails to load has no tests in it: count it as one failure.
      const brokenFiles = (report.testResults ?? []).filter(
        (file) => file.status === 'failed' && (file.assertionResults ?? []).length === 0,
      );
      failed += brokenFiles.length;
      for (const file of brokenFiles)
        notes.push(
          `${manifest.name}: ${file.name} failed to run: ${String(file.message).slice(0, 300)}`,
        );
      for (const file of report.testResults ?? []) {
        for (const test of file.assertionResults ?? []) {
          if (test.status !== 'failed') continue;
          const why = String(test.failureMessages?.[0] ?? '').split('\n')[0];
          notes.push(`${manifest.name}: failed: ${test.fullName} (${why.slice(0, 300)})`);
        }
      }
      if (report.numTotalTests === 0 && brokenFiles.length === 0) {
        notes.push(`${manifest.name}: ran no test`);
      }
    }
  }
  return { passed, failed, notes };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [label = 'tests', since = '0'] = process.argv.slice(2);
  const { passed, failed, notes } = sumTestReports(Number(since));
  for (const note of notes) process.stderr.write(`  ${label}: ${note}\n`);
  process.stdout.write(`${label}: ${passed} passed, ${failed} failed\n${passed} ${failed}\n`);
}
