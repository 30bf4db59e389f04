/**
 * What the runtime tests share: whether the suite runs here, the consumer project made by the
 * global setup from the packed tarballs, esbuild with nothing of this repository to resolve
 * from, child processes that cannot hang the run, and where a runtime's executable is.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BuildOptions, build, type Message } from 'esbuild';
import { inject } from 'vitest';

declare module 'vitest' {
  interface ProvidedContext {
    /** The consumer project (outside the repository) with the tarballs installed, or '' when skipped. */
    consumerProject: string;
  }
}

/** The app's directory. */
export const appDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The repository's root. */
export const repoRoot = path.resolve(appDir, '../..');

/**
 * Whether the suite runs: on a developer's machine always; under CI only where
 * `AGCORE_SERVICE_TESTS=1` (`.ci/run` sets it on the Node 20 leg: suites that start browsers
 * and other runtimes run once, and what they prove does not depend on the Node running them).
 */
export const suiteRuns = process.env.CI !== 'true' || process.env.AGCORE_SERVICE_TESTS === '1';

/**
 * Whether a runtime that is not there fails its test (CI, or `AGCORE_SERVICE_TESTS=1`) rather
 * than skipping it with one line saying how to get it.
 */
export const absenceFails = process.env.CI === 'true' || process.env.AGCORE_SERVICE_TESTS === '1';

/** The consumer project of the global setup. */
export function consumerProject(): string {
  const project = inject('consumerProject');
  if (project === '') throw new Error('the global setup made no consumer project');
  return project;
}

/**
 * The environment for a child process: this one without `NODE_PATH` (pnpm's shims set it to the
 * repository's store, through which a child would find packages a consumer does not have).
 */
export function childEnv(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_PATH;
  return env;
}

/** What a finished child process said. */
export interface Finished {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs a command to its end without blocking this process (a runtime under test talks to a
 * server of this process); killed after `timeoutMs`. Never rejects: a command that could not
 * start has status `null` and the reason in `stderr`.
 */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${options.timeoutMs ?? 60_000} ms)`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 60_000);
    child.once('error', (error) => {
      clearTimeout(timer);
      resolve({ status: null, stdout, stderr: `${stderr}${error.message}` });
    });
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** A bundle esbuild made, or the errors it gave (as text). */
export interface Bundled {
  readonly errors: readonly string[];
  readonly code: string;
}

const describeMessage = (message: Message): string =>
  `${message.text}${message.location === null ? '' : ` (${message.location.file}:${message.location.line})`}`;

/** What a bundle may be told besides its platform. */
export type BundleOptions = Pick<BuildOptions, 'external' | 'mainFields' | 'conditions' | 'banner'>;

/**
 * Bundles `entry` (a file of the consumer project) as one ESM file for `platform`, resolving
 * only from the consumer project (`nodePaths: []`: not from this repository's store).
 */
export async function bundle(
  entry: string,
  platform: 'node' | 'browser' | 'neutral',
  options: BundleOptions = {},
): Promise<Bundled> {
  try {
    const result = await build({
      entryPoints: [entry],
      absWorkingDir: path.dirname(entry),
      bundle: true,
      platform,
      format: 'esm',
      target: 'es2022',
      write: false,
      logLevel: 'silent',
      nodePaths: [],
      ...options,
    });
    return { errors: [], code: result.outputFiles[0]?.text ?? '' };
  } catch (error) {
    const errors = (error as { errors?: Message[] }).errors;
    return { errors: errors?.map(describeMessage) ?? [String(error)], code: '' };
  }
}

/** The first of `candidates` (absolute paths, or names looked up on `PATH`) that is executable. */
export function findExecutable(candidates: readonly string[]): string | undefined {
  const directories = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const candidate of candidates) {
    const paths = path.isAbsolute(candidate)
      ? [candidate]
      : directories.map((directory) => path.join(directory, candidate));
    for (const file of paths) {
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // Not there: the next one.
      }
    }
  }
  return undefined;
}

/** An executable of this app's devDependencies (`node_modules/.bin`). */
export function binOf(name: string): string {
  return path.join(appDir, 'node_modules', '.bin', name);
}
