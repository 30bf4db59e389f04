// `pnpm bench:compare <ref>`: builds a git ref in a temporary worktree and runs a suite with A
// = that build and B = the working tree's, both loaded in one process, passes alternating.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workingTree } from './roots.mjs';

/** The suites `--suite` names: the folder of the working tree they run in, and the node arguments. */
export const suites = Object.freeze({
  loop: { cwd: 'apps/bench', args: ['src/ab/run.mjs'] },
  'llm-cycle': { cwd: 'packages/llm-cycle', args: ['--import', 'tsx', 'src/cycle.bench.ts'] },
  'tools-mcp': { cwd: 'packages/tools-mcp', args: ['--import', 'tsx', 'src/call-tool.bench.ts'] },
  'tools-mcp-server': { cwd: 'packages/tools-mcp-server', args: ['scripts/bench.mjs', '--method'] },
  'tools-registry': { cwd: 'packages/tools-registry', args: ['bench/invoke.bench.mjs'] },
});

/** Thrown for a problem the user can fix; `code` is the exit status. */
export class CompareError extends Error {
  constructor(message, code = 2) {
    super(message);
    this.name = 'CompareError';
    this.code = code;
  }
}

const usage =
  'usage: pnpm bench:compare <git ref> [--suite loop|llm-cycle|tools-mcp|tools-mcp-server|tools-registry] [--pairs N] [--conversations N] [--warmup N] [--only NAMES] [--collect|--no-collect] [--single-threaded-gc] [--keep]';

const valued = new Set(['suite', 'pairs', 'conversations', 'warmup', 'only']);
const switches = new Set(['single-threaded-gc', 'keep']);
/** Switches handed to the suite as they are: whether it runs a full GC before each pass. */
const suiteSwitches = new Set(['collect', 'no-collect']);

/** Parses the command line: the ref, the suite and what is passed on to it. */
export function parseCompareArgs(argv) {
  const options = { suite: 'loop', pass: [], flags: new Set() };
  const rest = argv.filter((argument) => argument !== '--');
  for (let index = 0; index < rest.length; index++) {
    const argument = rest[index];
    if (!argument.startsWith('--')) {
      if (options.ref !== undefined)
        throw new CompareError(`one ref only (got ${options.ref} and ${argument})\n${usage}`);
      options.ref = argument;
      continue;
    }
    const name = argument.slice(2);
    if (switches.has(name)) options.flags.add(name);
    else if (suiteSwitches.has(name)) options.pass.push(argument);
    else if (valued.has(name)) {
      const value = rest[++index];
      if (value === undefined) throw new CompareError(`--${name} needs a value\n${usage}`);
      if (name === 'suite') options.suite = value;
      else options.pass.push(argument, value);
    } else throw new CompareError(`unknown option ${argument}\n${usage}`);
  }
  if (options.ref === undefined) throw new CompareError(`no git ref given\n${usage}`);
  if (!Object.hasOwn(suites, options.suite))
    throw new CompareError(
      `unknown suite ${options.suite} (known: ${Object.keys(suites).join(', ')})`,
    );
  return options;
}

function run(command, args, cwd, stdio = 'inherit') {
  return spawnSync(command, args, { cwd, stdio, encoding: 'utf8' });
}

/** The commit `ref` names in `repo`, or a CompareError saying it names none. */
export function resolveRef(ref, repo = workingTree) {
  const result = run('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], repo, 'pipe');
  const sha = result.stdout?.trim();
  if (result.status !== 0 || !sha)
    throw new CompareError(
      `unknown git ref "${ref}": git rev-parse finds no commit by that name in ${repo}`,
    );
  return sha;
}

function step(what, command, args, cwd) {
  process.stderr.write(`bench:compare: ${what}\n`);
  const result = run(command, args, cwd);
  return result.status === 0;
}

/** Installs and builds the packages of the checkout at `dir`; throws when it cannot. */
export function buildCheckout(dir, label) {
  const install = ['install', '--frozen-lockfile', '--loglevel', 'warn'];
  if (
    !step(
      `${label}: pnpm install --frozen-lockfile --offline`,
      'pnpm',
      [...install, '--offline'],
      dir,
    ) &&
    !step(`${label}: offline install failed, pnpm install --frozen-lockfile`, 'pnpm', install, dir)
  )
    throw new CompareError(`${label}: pnpm install failed in ${dir}`, 1);
  const build = [
    'exec',
    'turbo',
    'run',
    'build',
    '--filter=./packages/*',
    '--output-logs=errors-only',
  ];
  if (!step(`${label}: build the packages`, 'pnpm', build, dir))
    throw new CompareError(`${label}: the build failed in ${dir}`, 1);
}

/** The node command of the suite, with `--single-threaded-gc` when asked and `--expose-gc`. */
export function suiteCommand(options, rootA, rootB = workingTree) {
  const { cwd, args } = suites[options.suite];
  const command = process.execPath;
  const gc = [
    '--expose-gc',
    ...(options.flags.has('single-threaded-gc') ? ['--single-threaded-gc'] : []),
  ];
  return {
    command,
    cwd: join(rootB, cwd),
    args: [...gc, ...args, '--root-a', rootA, '--root-b', rootB, ...options.pass],
  };
}

/** The whole comparison; resolves to the exit status. */
export function compare(argv) {
  const options = parseCompareArgs(argv);
  const sha = resolveRef(options.ref);
  const dir = mkdtempSync(join(tmpdir(), 'agcore-bench-'));
  rmSync(dir, { recursive: true, force: true });
  if (
    !step(
      `git worktree add ${dir} ${sha.slice(0, 12)} (${options.ref})`,
      'git',
      ['worktree', 'add', '--quiet', '--detach', dir, sha],
      workingTree,
    )
  )
    throw new CompareError(`git worktree add failed for ${options.ref}`, 1);
  try {
    buildCheckout(dir, options.ref);
    buildCheckout(workingTree, 'working tree');
    const { command, args, cwd } = suiteCommand(options, dir);
    process.stderr.write(
      `bench:compare: A = ${options.ref} (${sha.slice(0, 12)}), B = the working tree\n`,
    );
    return run(command, args, cwd).status ?? 1;
  } finally {
    if (options.flags.has('keep')) process.stderr.write(`bench:compare: kept ${dir}\n`);
    else run('git', ['worktree', 'remove', '--force', dir], workingTree, 'pipe');
  }
}
