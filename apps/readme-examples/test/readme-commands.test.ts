/**
 * The root README's release commands start on the Node running the tests (CI runs them on 20, 22
 * and 24): `@changesets/cli` 3 crashed at start on Node 20 (`enableCompileCache is not a
 * function`), behind `pnpm changeset`, `pnpm version-packages` and `pnpm release`.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
