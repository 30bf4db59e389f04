// The packages work with the LOWEST versions their dependency ranges allow, not only with the
// ones the lockfile pins: packs every package, installs the tarballs with npm in a fresh project
// in the OS temp folder with `overrides` forcing each third-party runtime dependency to the
// lowest published version of its range, and runs the consumer check there (imports, require(),
// the tool loop plain and streamed, an MCP server's tool). Fails on a dependency that is not a
// caret range (a pinned library gives a consumer on another minor a second copy).
// Usage: node scripts/install-lowest.mjs [--skip-build]   (CI runs it once, on Node 20)
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'agcore-lowest-'));
const packed = path.join(work, 'packed');
const project = path.join(work, 'project');

/** Runs a command with a time limit, so that a stuck registry fails the step instead of hanging. */
function run(file, args, options = {}) {
  const result = spawnSync(file, args, { encoding: 'utf8', timeout: 180_000, ...options });
  if (result.status !== 0) {
    throw new Error(
      `${file} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})\n${result.stdout}${result.stderr}`,
    );
  }
  return result.stdout;
}

const compare = (a, b) => {
  const [x, y] = [a, b].map((version) => version.split(/[.+-]/).slice(0, 3).map(Number));
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

/** The lowest published version that `range` allows, as npm resolves it. */
function lowest(name, range) {
  const said = JSON.parse(run('npm', ['view', `${name}@${range}`, 'version', '--json']));
  const versions = (Array.isArray(said) ? said : [said]).sort(compare);
  if (versions.length === 0) throw new Error(`no published version of ${name} matches ${range}`);
  return versions[0];
}

try {
  const skipBuild = process.argv.includes('--skip-build') ? ['--skip-build'] : [];
  run(process.execPath, [path.join(root, 'scripts/pack.mjs'), '--out', packed, ...skipBuild], {
    cwd: root,
  });
  const tarballs = readdirSync(packed)
    .filter((name) => name.endsWith('.tgz'))
    .map((name) => path.join(packed, name));
  const minimum = new Map();
  for (const tarball of tarballs) {
    const manifest = JSON.parse(run('tar', ['-xOzf', tarball, 'package/package.json']));
    for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
      if (name.startsWith('@agcore/')) continue;
      if (!/^\^\d+\.\d+\.\d+$/.test(range)) {
        throw new Error(`${manifest.name} depends on ${name}@${range}: use a caret range`);
      }
      const version = lowest(name, range);
      const known = minimum.get(name);
      if (known === undefined || compare(version, known) > 0) minimum.set(name, version);
    }
  }
  const overrides = Object.fromEntries([...minimum].sort());
  cpSync(path.join(root, 'apps/readme-examples/test/consumer'), path.join(project, 'consumer'), {
    recursive: true,
  });
  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: 'lowest', private: true, type: 'module', overrides }, null, 2)}\n`,
  );
  run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error', ...tarballs],
    { cwd: project },
  );
  for (const [name, version] of minimum) {
    const installed = JSON.parse(
      readFileSync(path.join(project, 'node_modules', name, 'package.json'), 'utf8'),
    ).version;
    if (installed !== version) throw new Error(`${name}: installed ${installed}, not ${version}`);
  }
  for (const check of ['check.mjs', 'check.cjs']) {
    process.stdout.write(
      execFileSync(process.execPath, [path.join('consumer', check)], {
        cwd: project,
        encoding: 'utf8',
        timeout: 60_000,
      }),
    );
  }
  process.stdout.write(
    `lowest versions installed and checked: ${[...minimum].map(([name, version]) => `${name}@${version}`).join(', ')}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
