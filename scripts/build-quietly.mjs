// Builds a workspace package and everything it depends on (turbo, cached), printing turbo's
// output only when the build fails. Used by `pnpm playground` so a user sees the playground,
// not build logs. Usage: node scripts/build-quietly.mjs <package-name>
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const target = process.argv[2];
if (target === undefined) {
  process.stderr.write('usage: node scripts/build-quietly.mjs <package-name>\n');
  process.exit(2);
}
const turbo = fileURLToPath(new URL('../node_modules/.bin/turbo', import.meta.url));
const child = spawn(turbo, ['run', 'build', `--filter=${target}...`, '--output-logs=errors-only'], {
  stdio: ['ignore', 'pipe', 'pipe'],
  shell: process.platform === 'win32',
});
const output = [];
child.stdout.on('data', (chunk) => output.push(chunk));
child.stderr.on('data', (chunk) => output.push(chunk));
const notice = setTimeout(
  () => process.stderr.write('building the agcore packages (once; cached afterwards)…\n'),
  1500,
);
child.on('error', (error) => {
  clearTimeout(notice);
  process.stderr.write(`could not run turbo: ${error.message}. Run \`pnpm install\` first.\n`);
  process.exit(1);
});
child.on('close', (code) => {
  clearTimeout(notice);
  if (code !== 0) {
    process.stderr.write(Buffer.concat(output).toString());
    process.stderr.write(`\nbuilding ${target} failed (exit ${code}).\n`);
  }
  process.exit(code ?? 1);
});
