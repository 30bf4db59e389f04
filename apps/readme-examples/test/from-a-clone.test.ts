/**
 * The packages work from a clone, before they are on the npm registry, as the READMEs say:
 * `pnpm pack:all` packs them and prints how to install the tarballs with npm, pnpm and yarn;
 * following those instructions in a project of one's own (in the OS temp folder, outside the
 * repository) installs them (their third-party dependencies from the registry), and there every
 * entry imports and `require()`s, the tool loop runs (`test/consumer/check.mjs`), the llm-cycle
 * README's first example runs, a `moduleResolution: node10` project finds every subpath's types,
 * and arethetypeswrong finds no problem in any tarball.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { extractExamples } from './extract.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const bin = (name: string) => path.join(here, '..', 'node_modules', '.bin', name);
const work = mkdtempSync(path.join(tmpdir(), 'agcore-from-a-clone-'));
const packed = path.join(work, 'packed');
// Three installed projects: removing them takes a while on a loaded machine.
afterAll(() => rmSync(work, { recursive: true, force: true }), 300_000);

let said = '';
beforeAll(() => {
  said = execFileSync(
    process.execPath,
    [path.join(root, 'scripts/pack.mjs'), '--out', packed, '--skip-build'],
    { cwd: root, encoding: 'utf8' },
  );
}, 120_000);

/** The indented lines that follow the line starting with `heading`, up to `then:`/a blank line. */
function block(heading: string): string[] {
  const lines = said.split('\n');
  const start = lines.findIndex((line) => line.startsWith(heading));
  expect(start, `pack:all printed no "${heading}" section:\n${said}`).toBeGreaterThanOrEqual(0);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => !line.startsWith('  '));
  return (end === -1 ? rest : rest.slice(0, end)).map((line) => line.slice(2));
}

/** The command printed after `then:` in the section starting with `heading`. */
function thenCommand(heading: string): string[] {
  const lines = said.split('\n');
  const start = lines.findIndex((line) => line.startsWith(heading));
  const then = lines.findIndex((line, index) => index > start && line === 'then:');
  expect(then, `no "then:" line in the "${heading}" section:\n${said}`).toBeGreaterThan(start);
  return (lines[then + 1] ?? '').trim().split(' ');
}

function freshProject(name: string, fields: Record<string, unknown> = {}): string {
  const dir = path.join(work, name);
  mkdirSync(dir);
  writeFileSync(
    path.join(dir, 'package.json'),
    `${JSON.stringify({ name: 'my-agent', private: true, type: 'module', ...fields }, null, 2)}\n`,
  );
  return dir;
}

// A time limit on every install, so that a stuck one fails its test instead of hanging the run.
function install(dir: string, command: string[]): void {
  const [file = '', ...args] = command;
  const result = spawnSync(file, args, { cwd: dir, encoding: 'utf8', timeout: 180_000 });
  expect(result.error).toBeUndefined();
  expect(result.status, `${command.join(' ')}\n${result.stdout}\n${result.stderr}`).toBe(0);
}

/** Runs the import + tool-loop check and the require() check in an installed project. */
function expectConsumerChecksPass(dir: string): void {
  cpSync(path.join(here, 'consumer'), path.join(dir, 'consumer'), { recursive: true });
  for (const [file, line] of [
    ['check.mjs', 'consumer check passed'],
    ['check.cjs', 'require check passed'],
  ] as const) {
    const run = spawnSync(process.execPath, [path.join('consumer', file)], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain(line);
    expect(run.status).toBe(0);
  }
}

let npmProject = '';

it('packs every package, installs the tarballs with npm elsewhere, and a README example runs there', () => {
  const tarballs = readdirSync(packed).filter((name) => name.endsWith('.tgz'));
  expect(tarballs.map((name) => name.replace(/-\d+\.\d+\.\d+\.tgz$/, '')).sort()).toEqual([
    'agcore-durable-dbos',
    'agcore-llm-cycle',
    'agcore-store-postgres',
    'agcore-tools-core',
    'agcore-tools-mcp',
    'agcore-tools-mcp-server',
    'agcore-tools-permission',
    'agcore-tools-registry',
  ]);
  const command = block('npm:')[0]?.split(' ') ?? [];
  expect(command.slice(0, 2)).toEqual(['npm', 'install']);
  expect(command.slice(2)).toHaveLength(tarballs.length);

  npmProject = freshProject('npm');
  // --prefer-offline: what npm's cache holds is not fetched again (CI runs this on three Node
  // versions, and a registry that answers slowly must not make it take hours).
  const npm = spawnSync(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel',
      'error',
      ...command.slice(2),
    ],
    { cwd: npmProject, encoding: 'utf8', timeout: 180_000 },
  );
  expect(npm.error).toBeUndefined();
  expect(npm.stderr).toBe('');
  expect(npm.status).toBe(0);
  expectConsumerChecksPass(npmProject);

  const [example] = extractExamples(root, 'packages/llm-cycle/README.md');
  writeFileSync(path.join(npmProject, 'example.mts'), `${example?.code ?? ''}\nexport {};\n`);
  const run = spawnSync(bin('tsx'), ['example.mts'], {
    cwd: npmProject,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, OPENAI_BASE_URL: '', OPENAI_API_KEY: '', AGCORE_MODEL: '' },
  });
  expect(run.stderr).toBe('');
  expect(run.stdout).toContain('It is 22 °C in Paris.');
  expect(run.status).toBe(0);
}, 240_000);

it('installs with pnpm as pack:all says: the overrides block in pnpm-workspace.yaml, then pnpm add', () => {
  const overrides = block('pnpm:');
  expect(overrides[0]).toBe('overrides:');
  // tools-core, tools-permission, tools-registry and llm-cycle: the tarballs the others depend on.
  expect(overrides.slice(1)).toHaveLength(4);
  const dir = freshProject('pnpm');
  writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), `${overrides.join('\n')}\n`);
  const command = thenCommand('pnpm:');
  expect(command.slice(0, 2)).toEqual(['pnpm', 'add']);
  // --prefer-offline as for npm; the store is pnpm's usual one, shared with the repository's.
  install(dir, [...command, '--prefer-offline', '--reporter', 'silent']);
  expectConsumerChecksPass(dir);
}, 240_000);

it('installs with yarn as pack:all says: the resolutions field in package.json, then yarn add', () => {
  const resolutions = JSON.parse(`{${block('yarn:').join('\n')}}`);
  expect(Object.keys(resolutions.resolutions)).toHaveLength(4);
  const dir = freshProject('yarn', resolutions);
  const command = thenCommand('yarn:');
  expect(command.slice(0, 2)).toEqual(['yarn', 'add']);
  install(dir, [
    bin('yarn'),
    ...command.slice(1),
    '--non-interactive',
    '--prefer-offline',
    '--silent',
    '--cache-folder',
    path.join(tmpdir(), 'agcore-yarn-cache'),
  ]);
  expectConsumerChecksPass(dir);
}, 240_000);

it('a moduleResolution node10 project finds the types of every entry of every package', () => {
  expect(npmProject, 'the npm install test runs first').not.toBe('');
  const entries = readdirSync(path.join(npmProject, 'node_modules', '@agcore')).flatMap((name) => {
    const manifest = JSON.parse(
      readFileSync(path.join(npmProject, 'node_modules', '@agcore', name, 'package.json'), 'utf8'),
    );
    return Object.keys(manifest.exports as Record<string, unknown>)
      .filter((key) => key !== './package.json')
      .map((key) => `@agcore/${name}${key.slice(1)}`);
  });
  expect(entries).toEqual(
    expect.arrayContaining(['@agcore/tools-core/schema', '@agcore/llm-cycle/testing']),
  );
  writeFileSync(
    path.join(npmProject, 'node10.ts'),
    `${entries.map((entry, index) => `import * as entry${index} from '${entry}';`).join('\n')}\nexport const entries = [${entries.map((_, index) => `entry${index}`).join(', ')}];\n`,
  );
  writeFileSync(
    path.join(npmProject, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'commonjs',
        moduleResolution: 'node10',
        target: 'es2022',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ['node10.ts'],
    }),
  );
  const tsc = spawnSync(bin('tsc'), ['-p', 'tsconfig.json'], {
    cwd: npmProject,
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(tsc.stdout).toBe('');
  expect(tsc.status).toBe(0);
}, 120_000);

it('arethetypeswrong finds no problem in any tarball (ESM only: require() of ESM is not one)', () => {
  const tarballs = readdirSync(packed).filter((name) => name.endsWith('.tgz'));
  expect(tarballs).toHaveLength(8);
  for (const tarball of tarballs) {
    // The strict profile less the one rule an ESM-only package breaks by design: node10 is
    // still checked (the typesVersions), where `--profile esm-only` would skip it.
    const attw = spawnSync(
      bin('attw'),
      [
        path.join(packed, tarball),
        '--ignore-rules',
        'cjs-resolves-to-esm',
        '--format',
        'table-flipped',
      ],
      {
        encoding: 'utf8',
        // Type-checking seven tarballs is CPU work: generous limits for a loaded 2-core machine.
        timeout: 240_000,
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      },
    );
    expect(attw.status, `${tarball}\n${attw.stdout}${attw.stderr}`).toBe(0);
  }
}, 900_000);

it('runtime dependencies are caret ranges, so a consumer on another minor shares one copy', () => {
  for (const tarball of readdirSync(packed).filter((name) => name.endsWith('.tgz'))) {
    const manifest = JSON.parse(
      execFileSync('tar', ['-xOzf', path.join(packed, tarball), 'package/package.json'], {
        encoding: 'utf8',
      }),
    );
    expect(manifest.engines).toEqual({ node: '>=20.19' });
    for (const [name, range] of Object.entries(manifest.dependencies as Record<string, string>)) {
      expect(`${tarball}: ${name}@${range}`).toMatch(/@\^\d+\.\d+\.\d+$/);
    }
  }
});
