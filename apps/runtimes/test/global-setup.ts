/**
 * Once per run: packs every package (`scripts/pack.mjs`, as `pnpm pack:all` does) and installs
 * the tarballs with npm into a project of its own in the OS temp folder, outside the
 * repository, with nothing else but `@types/node` (for the typecheck): no `@opentelemetry/api`.
 * The fixtures (the consumers of `fixtures/`) are copied there.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { appDir, childEnv, repoRoot, suiteRuns } from './support.js';

/** The `@types/node` of the repository's catalog. */
const typesNode = '@types/node@20.19.43';

export default function setup(project: TestProject): () => void {
  if (!suiteRuns) {
    project.provide('consumerProject', '');
    return () => undefined;
  }
  const consumer = mkdtempSync(path.join(tmpdir(), 'agcore-runtimes-'));
  if (!path.relative(repoRoot, consumer).startsWith('..'))
    throw new Error(`the consumer project ${consumer} is inside the repository`);
  const packed = path.join(consumer, 'packed');
  execFileSync(
    process.execPath,
    [path.join(repoRoot, 'scripts/pack.mjs'), '--out', packed, '--skip-build'],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: childEnv(),
    },
  );
  const tarballs = readdirSync(packed)
    .filter((name) => name.endsWith('.tgz'))
    .map((name) => path.join(packed, name));
  writeFileSync(
    path.join(consumer, 'package.json'),
    '{ "name": "a-consumer", "private": true, "type": "module" }\n',
  );
  // --prefer-offline: what npm's cache holds is not fetched again; a time limit, so that a stuck
  // install fails the run instead of hanging it.
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel',
      'error',
      ...tarballs,
      typesNode,
    ],
    { cwd: consumer, encoding: 'utf8', timeout: 240_000, env: childEnv() },
  );
  if (npm.status !== 0)
    throw new Error(
      `npm install of the tarballs failed (${npm.status}): ${npm.stderr}${npm.error?.message ?? ''}`,
    );
  if (existsSync(path.join(consumer, 'node_modules', '@opentelemetry', 'api')))
    throw new Error(
      'npm installed @opentelemetry/api: the consumer must not have the optional peer',
    );
  cpSync(path.join(appDir, 'fixtures'), consumer, { recursive: true });
  project.provide('consumerProject', consumer);
  return () => rmSync(consumer, { recursive: true, force: true });
}
