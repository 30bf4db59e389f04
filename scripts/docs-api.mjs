// Generates the API reference in docs/api/ from the JSDoc of every publishable package with
// TypeDoc and typedoc-plugin-markdown (options in typedoc.json): one folder per package, one
// module per entry of its `exports` map, so a new subpath is documented without a config change.
// An export without a doc comment fails the run (typedoc.json: validation.notDocumented,
// treatValidationWarningsAsErrors).
// Usage: node scripts/docs-api.mjs            (pnpm docs:api: writes docs/api)
//        node scripts/docs-api.mjs --check    (pnpm docs:api:check: builds into the OS temp
//                                              folder, fails if docs/api differs from it)
// The packages' dist/ must be built (TypeDoc resolves one package's types in another through it).
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
const committed = path.join(root, 'docs', 'api');
const out = check ? mkdtempSync(path.join(tmpdir(), 'agcore-docs-api-')) : committed;
const typedoc = path.join(root, 'node_modules', '.bin', 'typedoc');
// Reflections TypeDoc asks a comment of that cannot carry one of their own. NeedsApprovalFunction
// is `{ check(...): ... }['check']` (a method type, for bivariance): its comment is the alias's.
const intentionallyNotDocumented = {
  'tools-core': ['index.NeedsApprovalFunction.__type.check'],
};

/** Each publishable package: its folder name, npm name and the source file of each entry. */
function packages() {
  return readdirSync(path.join(root, 'packages'))
    .sort()
    .flatMap((folder) => {
      const dir = path.join(root, 'packages', folder);
      const file = path.join(dir, 'package.json');
      if (!existsSync(file)) return [];
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      if (manifest.private === true) return [];
      const entries = Object.values(manifest.exports ?? {})
        .filter((target) => typeof target === 'object' && typeof target.types === 'string')
        .map((target) => target.types.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts'));
      for (const entry of entries) {
        if (!existsSync(path.join(dir, entry))) throw new Error(`${folder}: no ${entry}`);
      }
      return [{ folder, dir, name: manifest.name, description: manifest.description, entries }];
    });
}

/** Runs TypeDoc for one package; resolves with its output, rejects with it when it fails. */
function document(pkg) {
  const args = ['--options', path.join(root, 'typedoc.json'), '--tsconfig', 'tsconfig.json'];
  for (const entry of pkg.entries) args.push('--entryPoints', entry);
  for (const name of intentionallyNotDocumented[pkg.folder] ?? []) {
    args.push('--intentionallyNotDocumented', name);
  }
  args.push('--name', pkg.name, '--out', path.join(out, pkg.folder), '--logLevel', 'Warn');
  return new Promise((resolve, reject) => {
    const child = spawn(typedoc, args, { cwd: pkg.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    child.stdout.on('data', (chunk) => {
      said += chunk;
    });
    child.stderr.on('data', (chunk) => {
      said += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(said) : reject(new Error(`TypeDoc failed for ${pkg.name}:\n${said}`)),
    );
  });
}

/** Every file under `dir`, as paths relative to it. */
function files(dir, base = dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full, base) : [path.relative(base, full)];
  });
}

const all = packages();
if (!check) rmSync(out, { recursive: true, force: true });
try {
  // Two at a time: the machines have two cores.
  const queue = [...all];
  const worker = async () => {
    for (let pkg = queue.shift(); pkg !== undefined; pkg = queue.shift()) await document(pkg);
  };
  await Promise.all([worker(), worker()]);
  writeFileSync(
    path.join(out, 'README.md'),
    [
      '# API reference',
      '',
      'Generated from the JSDoc by `pnpm docs:api` (TypeDoc); CI fails when it is stale.',
      '',
      ...all.map((pkg) => `- [\`${pkg.name}\`](${pkg.folder}/README.md): ${pkg.description}`),
      '',
    ].join('\n'),
  );
  if (check) {
    const fresh = files(out).sort();
    const old = files(committed).sort();
    const differing = [...new Set([...fresh, ...old])].filter(
      (file) =>
        !fresh.includes(file) ||
        !old.includes(file) ||
        readFileSync(path.join(out, file), 'utf8') !==
          readFileSync(path.join(committed, file), 'utf8'),
    );
    if (differing.length > 0) {
      process.stderr.write(
        `docs/api is stale (${differing.length} files differ, e.g. ${differing.slice(0, 5).join(', ')}): run pnpm docs:api and commit docs/api\n`,
      );
      process.exitCode = 1;
    } else {
      process.stdout.write(`docs/api is up to date (${fresh.length} files)\n`);
    }
  } else {
    process.stdout.write(`docs/api written (${files(out).length} files)\n`);
  }
} finally {
  if (check) rmSync(out, { recursive: true, force: true });
}
