// `pnpm test`: every package's tests through turbo, then one total line, "N passed, N failed",
// summed from the vitest JSON reports of this run (the same sum .ci/run prints).
// FORCE_COLOR=0 means "no colour" to most tools, but vitest reads any FORCE_COLOR as "colour
// on": turn it into NO_COLOR so piped logs stay plain.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sumTestReports } from './sum-test-reports.mjs';

const env = { ...process.env };
if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') {
  delete env.FORCE_COLOR;
  env.NO_COLOR = '1';
}
const start = Date.now();
// pnpm passes a `--` separator through as is; turbo would hand what follows it to vitest.
const extra = process.argv.slice(2).filter((argument, index) => index > 0 || argument !== '--');
const turbo = spawnSync('turbo', ['run', 'test', '--continue', ...extra], {
  stdio: 'inherit',
  env,
  cwd: fileURLToPath(new URL('..', import.meta.url)),
  shell: process.platform === 'win32',
});
if (turbo.error !== undefined) {
  process.stderr.write(
    `Could not start turbo (${turbo.error.message}); run this through \`pnpm test\`.\n`,
  );
  process.exit(1);
}
// With a filter (`pnpm test --filter=...`) only the packages that ran are counted.
const { passed, failed, notes } = sumTestReports(start, { requireAll: extra.length === 0 });
for (const note of notes) process.stderr.write(`  ${note}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exit(turbo.status === 0 && failed === 0 ? 0 : 1);
