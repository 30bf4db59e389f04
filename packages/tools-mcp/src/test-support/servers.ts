import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpStdioTransportConfig } from '../config/transport-config.js';
import type { McpToolError } from '../mcp-tool-error.js';

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = join(here, '..', '..');
const modules = join(packageRoot, 'node_modules', '@modelcontextprotocol');

/** Entry points of the real servers installed as devDependencies. */
export const serverEntries = {
  everything: join(modules, 'server-everything', 'dist', 'index.js'),
  filesystem: join(modules, 'server-filesystem', 'dist', 'index.js'),
  memory: join(modules, 'server-memory', 'dist', 'index.js'),
} as const;

/** A fault script of src/test-support, run with node. */
export function faultServer(name: string, ...args: string[]): McpStdioTransportConfig {
  return { type: 'stdio', command: process.execPath, args: [join(here, name), ...args] };
}

/** The fault server in `mode`, logging start-up, list pages, calls and cancellations to `logFile`. */
export function loggedFaultServer(mode: string, logFile: string): McpStdioTransportConfig {
  return { ...faultServer('fault-server.mjs', mode), env: { FAULT_LOG: logFile } };
}

/** The hand-written hostile server in `mode` (see hostile-server.mjs), logging to `logFile` when given. */
export function hostileServer(
  mode: string,
  options: { readonly logFile?: string; readonly env?: Readonly<Record<string, string>> } = {},
): McpStdioTransportConfig {
  const env = {
    ...options.env,
    ...(options.logFile === undefined ? {} : { FAULT_LOG: options.logFile }),
  };
  return {
    ...faultServer('hostile-server.mjs', mode),
    ...(Object.keys(env).length === 0 ? {} : { env }),
  };
}

/** The lines of a fault server's log so far ([] before it wrote any). */
export async function logLines(logFile: string): Promise<string[]> {
  try {
    return (await readFile(logFile, 'utf8')).split('\n').filter((line) => line !== '');
  } catch {
    return [];
  }
}

/** server-everything over stdio. */
export function everythingStdio(): McpStdioTransportConfig {
  return { type: 'stdio', command: process.execPath, args: [serverEntries.everything, 'stdio'] };
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  server.close();
  await once(server, 'close');
  return port;
}

/** A server-everything HTTP process (streamableHttp or sse), started and listening. */
export interface HttpServerProcess {
  readonly port: number;
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything the server printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts server-everything in `mode` on a free port and waits until it listens. */
export async function startEverythingHttp(
  mode: 'streamableHttp' | 'sse',
): Promise<HttpServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [serverEntries.everything, mode], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`server-everything ${mode} did not start: ${output}`)),
      20_000,
    );
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (/listening on port|running on port/i.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (/listening on port|running on port/i.test(output)) return;
      reject(new Error(`server-everything ${mode} exited with ${code}: ${output}`));
    });
  });
  return {
    output: () => output,
    port,
    child,
    url: `http://127.0.0.1:${port}${mode === 'sse' ? '/sse' : '/mcp'}`,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** A fresh temporary directory, removed by the returned function. */
export async function tempDir(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `agcore-mcp-${prefix}-`));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Whether a process with this pid is still alive. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The error `promise` rejects with; throws when it resolves instead. */
export async function failure(promise: Promise<unknown>): Promise<McpToolError> {
  try {
    await promise;
  } catch (error) {
    return error as McpToolError;
  }
  throw new Error('expected a rejection');
}
