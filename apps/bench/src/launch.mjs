// Entry point of `pnpm bench:peers`, run by whatever Node the workspace uses (20 here):
// builds the workspace packages the bench imports, finds a Node 22 binary (this one when it is
// 22+, else BENCH_NODE, else the npm package `node@22` through `npx -y node@22`), and runs the
// whole comparison under it. Options after `--` go to the bench (`--quick`, `--only a,b`, `--out file`).
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..', '..');
const args = process.argv.slice(2).filter((arg) => arg !== '--');
const skipBuild = args.includes('--no-build');

function fail(message) {
  process.stderr.write(`[bench] ${message}\n`);
  process.exit(1);
}

if (!skipBuild) {
  process.stderr.write('[bench] building the workspace packages of @agcore/bench\n');
  const build = spawnSync(
    'pnpm',
    ['turbo', 'run', 'build', '--filter=@agcore/bench...', '--output-logs=errors-only'],
    {
      cwd: repoRoot,
      stdio: 'inherit',
    },
  );
  if (build.status !== 0)
    fail(`the build failed (exit ${build.status ?? build.signal}); fix it or pass --no-build`);
}

function node22() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  if (process.env.BENCH_NODE) return process.env.BENCH_NODE;
  process.stderr.write('[bench] finding Node 22: npx -y node@22\n');
  const found = spawnSync('npx', ['-y', 'node@22', '-p', 'process.execPath'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const path = found.stdout?.trim().split('\n').at(-1);
  if (found.status !== 0 || !path)
    fail(`could not get Node 22 with 'npx -y node@22' (exit ${found.status}); set BENCH_NODE`);
  return path;
}

const binary = node22();
const benchArgs = args.filter((arg) => arg !== '--no-build');
const child = spawn(binary, [join(here, 'main.mjs'), ...benchArgs], { stdio: 'inherit' });
child.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
