/**
 * The root README's release commands start on the Node running the tests (CI runs them on 20, 22
 * and 24): `@changesets/cli` 3 crashed at start on Node 20 (`enableCompileCache is not a
 * function`), behind `pnpm changeset`, `pnpm version-packages` and `pnpm release`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

it('the changesets CLI behind pnpm changeset / version-packages / release starts', () => {
  const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
  expect(scripts.changeset).toBe('changeset');
  expect(scripts['version-packages']).toBe('changeset version');
  const result = spawnSync(path.join(root, 'node_modules/.bin/changeset'), ['--version'], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.stdout).toMatch(/^\d+\.\d+\.\d+/);
  expect(result.status).toBe(0);
});

it('every published package.json says where it comes from and is published with provenance', () => {
  const manifests = [
    'llm-cycle',
    'tools-core',
    'tools-mcp',
    'tools-permission',
    'tools-registry',
  ].map(
    (name) =>
      [
        name,
        JSON.parse(readFileSync(path.join(root, 'packages', name, 'package.json'), 'utf8')),
      ] as const,
  );
  for (const [name, manifest] of manifests) {
    expect(manifest.repository).toEqual({
      type: 'git',
      url: 'git+https://github.com/agcore/agcore.git',
      directory: `packages/${name}`,
    });
    expect(manifest.homepage).toBe(
      `https://github.com/agcore/agcore/tree/main/packages/${name}#readme`,
    );
    expect(manifest.bugs).toEqual({ url: 'https://github.com/agcore/agcore/issues' });
    expect(manifest.keywords.length).toBeGreaterThan(2);
    expect(manifest.publishConfig).toEqual({ access: 'public', provenance: true });
    // The changesets' CHANGELOG.md goes into the tarball (npm does not add it by itself).
    expect(manifest.files).toEqual(['dist', 'CHANGELOG.md']);
  }
  const scripts = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).scripts;
  // Provenance can only be made where the CI provides an OIDC identity: outside it, publishing
  // fails instead of uploading an unattested tarball.
  expect(scripts.release).toBe('turbo run build && NPM_CONFIG_PROVENANCE=true changeset publish');
});

it('each package README says how the ESM packages load and links its API reference', () => {
  for (const name of [
    'llm-cycle',
    'tools-core',
    'tools-mcp',
    'tools-permission',
    'tools-registry',
  ]) {
    const readme = readFileSync(path.join(root, 'packages', name, 'README.md'), 'utf8');
    expect(readme).toContain('The packages are ESM only');
    expect(readme).toMatch(/`require\(\)` loads\s+them on Node 20\.19\+ \(20\.x\) and 22\.12\+/);
    expect(readme).toContain('with npm, pnpm or yarn');
    const link = `../../docs/api/${name}/README.md`;
    expect(readme).toContain(`(${link})`);
    expect(existsSync(path.join(root, 'packages', name, link))).toBe(true);
  }
});

/** The commands of the root README's quick start (its first `sh` block), one per line. */
function quickStart(): string[] {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block
    .split('\n')
    .flatMap((line) => line.split('&&'))
    .map((command) => command.trim())
    .filter((command) => command !== '');
}

it("the quick start's install prints nothing but warnings before the playground's first line", () => {
  const install = quickStart().find((command) => command.startsWith('pnpm install'));
  expect(install).toBeDefined();
  const [pnpm = 'pnpm', ...args] = (install ?? '').split(/\s+/);
  // From the lockfile and the cache: the tree is installed already; what is left is the noise.
  const result = spawnSync(pnpm, [...args, '--prefer-offline', '--frozen-lockfile'], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, CI: '' },
  });
  expect(result.status).toBe(0);
  expect(`${result.stdout}${result.stderr}`).toBe('');
});

it('pnpm test prints no "experimental feature" notice of vitest', () => {
  const vitest = path.join(root, 'node_modules/.bin/vitest');
  for (const group of ['packages', 'apps']) {
    for (const name of readdirSync(path.join(root, group))) {
      const cwd = path.join(root, group, name);
      if (!readdirSync(cwd).some((file) => file.startsWith('vitest.config.'))) continue;
      // A filter that matches no file: the config is read (where the notice comes from), no test runs.
      const result = spawnSync(vitest, ['run', 'no-such-test-file-xyz', '--passWithNoTests'], {
        cwd,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(result.status, `${group}/${name}: ${result.stderr}`).toBe(0);
      expect(`${result.stdout}${result.stderr}`, `${group}/${name}`).not.toContain('experimental');
    }
  }
}, 120_000);
