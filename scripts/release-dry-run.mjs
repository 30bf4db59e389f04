// A release rehearsal, with nothing published and nothing left changed: in a throwaway copy of
// the repository (its tracked files, the packages' built dist/, node_modules linked),
// `changeset version` consumes the pending changesets and writes each package's CHANGELOG.md,
// then `pnpm publish --dry-run -r --no-git-checks` packs every publishable package as
// `pnpm release` would publish it. Fails unless each package is packed at its new version with
// its CHANGELOG.md and the repository's own files are as they were.
// Usage: node scripts/release-dry-run.mjs   (after pnpm build; CI runs it once)
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const copy = mkdtempSync(path.join(tmpdir(), 'agcore-release-'));

/** Runs a command with a time limit; returns its stdout, throws with its output on failure. */
function run(file, args, cwd) {
  const result = spawnSync(file, args, { cwd, encoding: 'utf8', timeout: 180_000 });
  if (result.status !== 0) {
    throw new Error(
      `${file} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})\n${result.stdout}${result.stderr}`,
    );
  }
  return result.stdout;
}

const workspaces = ['packages', 'apps'].flatMap((folder) =>
  readdirSync(path.join(root, folder)).map((name) => path.join(folder, name)),
);
const before = run('git', ['status', '--porcelain'], root);
try {
  for (const file of run('git', ['ls-files', '-z'], root).split('\0').filter(Boolean)) {
    if (!existsSync(path.join(root, file))) continue; // deleted in the work tree
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(root, file), path.join(copy, file));
  }
  // pnpm links each workspace's dependencies in its own node_modules, with relative symlinks
  // into the root's: copied as links, they resolve to the copy's packages and the root's store.
  symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  for (const workspace of workspaces) {
    for (const folder of ['node_modules', 'dist']) {
      const from = path.join(root, workspace, folder);
      if (existsSync(from)) {
        cpSync(from, path.join(copy, workspace, folder), {
          recursive: true,
          verbatimSymlinks: true,
        });
      }
    }
  }
  const publishable = workspaces
    .map((workspace) => ({
      workspace,
      manifest: JSON.parse(readFileSync(path.join(root, workspace, 'package.json'), 'utf8')),
    }))
    .filter(({ manifest }) => manifest.private !== true);

  run(path.join(root, 'node_modules', '.bin', 'changeset'), ['version'], copy);
  const packed = JSON.parse(
    run('pnpm', ['publish', '--dry-run', '-r', '--no-git-checks', '--json'], copy),
  );
  const problems = [];
  for (const { workspace, manifest } of publishable) {
    const next = JSON.parse(readFileSync(path.join(copy, workspace, 'package.json'), 'utf8'));
    const tarball = packed.find((entry) => entry.name === manifest.name);
    const files = new Set(tarball?.files.map((file) => file.path) ?? []);
    if (tarball === undefined) problems.push(`${manifest.name} was not packed`);
    else if (tarball.version !== next.version) {
      problems.push(`${manifest.name} packed at ${tarball.version}, not ${next.version}`);
    }
    for (const file of ['CHANGELOG.md', 'README.md', 'package.json']) {
      if (tarball !== undefined && !files.has(file)) problems.push(`${manifest.name}: no ${file}`);
    }
    process.stdout.write(
      `${manifest.name} ${manifest.version} -> ${next.version}: ${files.size} files packed\n`,
    );
  }
  const left = readdirSync(path.join(copy, '.changeset')).filter(
    (name) => name.endsWith('.md') && name !== 'README.md',
  );
  if (left.length > 0) problems.push(`changeset version left ${left.join(', ')}`);
  if (run('git', ['status', '--porcelain'], root) !== before) {
    problems.push('the repository was changed');
  }
  if (problems.length > 0) throw new Error(`release dry run failed:\n  ${problems.join('\n  ')}`);
  process.stdout.write('release dry run passed: nothing published, nothing changed\n');
} finally {
  rmSync(copy, { recursive: true, force: true });
}
