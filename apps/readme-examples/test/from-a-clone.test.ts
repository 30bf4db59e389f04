/**
 * The packages work from a clone, before they are on the npm registry, as the READMEs say:
 * `pnpm pack:all` packs them, `npm install` of the tarballs in a project of one's own installs
 * them (their third-party dependencies from the registry), and the llm-cycle README's first
 * example runs there.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { extractExamples } from './extract.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const project = mkdtempSync(path.join(tmpdir(), 'agcore-from-a-clone-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

it('packs every package, installs the tarballs with npm elsewhere, and a README example runs there', () => {
  const packed = path.join(project, 'packed');
  const said = execFileSync(
    process.execPath,
    [path.join(root, 'scripts/pack.mjs'), '--out', packed, '--skip-build'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  const tarballs = readdirSync(packed).filter((name) => name.endsWith('.tgz'));
  expect(tarballs.map((name) => name.replace(/-\d+\.\d+\.\d+\.tgz$/, '')).sort()).toEqual([
    'agcore-llm-cycle',
    'agcore-tools-core',
    'agcore-tools-mcp',
    'agcore-tools-permission',
    'agcore-tools-registry',
  ]);
  const install = /npm install (.+)\n/.exec(said)?.[1]?.split(' ') ?? [];
  expect(install).toHaveLength(tarballs.length);

  writeFileSync(
    path.join(project, 'package.json'),
    '{ "name": "my-agent", "private": true, "type": "module" }\n',
  );
  // --prefer-offline: what npm's cache holds is not fetched again (CI runs this on three Node
  // versions, and a registry that answers slowly must not make it take hours); a time limit so
  // that a stuck install fails this test instead of hanging the run.
  const npm = spawnSync(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel', 'error', ...install],
    { cwd: project, encoding: 'utf8', timeout: 180_000 },
  );
  expect(npm.error).toBeUndefined();
  expect(npm.stderr).toBe('');
  expect(npm.status).toBe(0);

  const [example] = extractExamples(root, 'packages/llm-cycle/README.md');
  writeFileSync(path.join(project, 'example.mts'), `${example?.code ?? ''}\nexport {};\n`);
  const tsx = path.join(here, '..', 'node_modules', '.bin', 'tsx');
  const run = spawnSync(tsx, ['example.mts'], {
    cwd: project,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, OPENAI_BASE_URL: '', OPENAI_API_KEY: '', AGCORE_MODEL: '' },
  });
  expect(run.stderr).toBe('');
  expect(run.stdout).toContain('It is 22 °C in Paris.');
  expect(run.status).toBe(0);
}, 240_000);
