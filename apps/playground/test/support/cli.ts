import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built CLI, run as a user would: `node dist/cli.js`. */
/** Matches a stack trace (a frame line or a node:internal path) in the CLI's output. */
export const noStack = /\n\s+at \S+ \(|node:internal/;

export const cliPath = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../dist/cli.js',
);

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly env?: Record<string, string | undefined>;
  readonly input?: string;
  readonly timeoutMs?: number;
  readonly detached?: boolean;
  /** The working directory (default: the test's). */
  readonly cwd?: string;
}

/** A clean environment: no model configured, no colour forced. */
export function baseEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of [
    'OPENAI_BASE_URL',
    'OPENAI_API_KEY',
    'AGCORE_MODEL',
    'FORCE_COLOR',
    'NO_COLOR',
    'COLUMNS',
  ]) {
    delete env[key];
  }
  for (const [key, value] of Object.entries(extra)) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Starts the CLI; the caller collects output with `collect`. */
export function startCli(args: readonly string[], options: CliOptions = {}): ChildProcess {
  return spawn(process.execPath, [cliPath, ...args], {
    env: baseEnv(options.env),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: options.detached ?? false,
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
  });
}

/** Waits for the process to end, with its output. Kills it after `timeoutMs`. */
export function collect(
  child: ChildProcess,
  timeoutMs = 60_000,
): Promise<CliResult> & { output: () => string } {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const promise = new Promise<CliResult>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return Object.assign(promise, { output: () => stdout });
}

/** Runs the CLI to the end. */
export async function runCli(
  args: readonly string[],
  options: CliOptions = {},
): Promise<CliResult> {
  const child = startCli(args, options);
  const result = collect(child, options.timeoutMs);
  child.stdin?.end(options.input ?? '');
  return result;
}

/** Resolves once `predicate(output)` holds (polling), or rejects after `timeoutMs`. */
export async function waitFor(
  read: () => string,
  predicate: (text: string) => boolean,
  timeoutMs = 30_000,
): Promise<void> {
  const started = Date.now();
  while (!predicate(read())) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out waiting; output so far:\n${read()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The pids of every live descendant of `pid` (Linux /proc). */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] === 'Z') continue;
      const ppid = Number(fields[1]);
      const list = parents.get(ppid) ?? [];
      list.push(Number(entry));
      parents.set(ppid, list);
    } catch {
      // The process ended while we looked.
    }
  }
  const result: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const next = queue.shift() as number;
    for (const child of parents.get(next) ?? []) {
      result.push(child);
      queue.push(child);
    }
  }
  return result;
}

/** Whether a process is alive (and not a zombie). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** The JSON lines of a --json run. */
export function jsonLines(stdout: string): Array<Record<string, unknown> & { type: string }> {
  return stdout
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string });
}
