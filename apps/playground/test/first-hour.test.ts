// What a new user meets in the first hour: waits that say what they wait for, messages that
// read, output that fits 80 columns when piped, and nothing written into their folder.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import stringWidth from 'string-width';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, jsonLines, noStack, runCli, startCli, waitFor } from './support/cli.js';

/** A server that accepts every connection and never sends a byte. */
interface SilentServer {
  readonly baseURL: string;
  connections(): number;
  close(): Promise<void>;
}

async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const remote = (baseURL: string, ...more: string[]): string[] => [
  '--flow',
  'weather',
  '--base-url',
  baseURL,
  '--model',
  'm',
  ...more,
];

describe('a server that accepts and never answers: every wait is shown as it happens', () => {
  let silent: SilentServer;
  beforeAll(async () => {
    silent = await startSilentServer();
  });
  afterAll(async () => {
    await silent.close();
  });

  it('prints a line per retry while the run still waits, then the failure', async () => {
    const child = startCli(remote(silent.baseURL, '--idle-timeout', '1000'));
    const result = collect(child);
    child.stdin?.end();
    await waitFor(result.output, (text) => text.includes('retrying (1/3)'));
    // The first retry is announced before the attempts that follow it are made.
    expect(child.exitCode).toBeNull();
    expect(silent.connections()).toBeLessThan(4);
    const { code, stdout, stderr } = await result;
    expect(code).toBe(1);
    for (const attempt of [1, 2, 3]) {
      expect(stdout).toMatch(
        new RegExp(`↻ no byte for 1\\.0 s — retrying \\(${attempt}/3\\) in [\\d.]+ (ms|s)\\n`),
      );
    }
    expect(stderr).toContain('sent nothing for idleTimeoutMs (1000 ms)');
    expect(stderr).not.toMatch(noStack);
  });

  it('--json: each retry is a request_retry record, before run_finished', async () => {
    const { code, stdout } = await runCli(
      remote(silent.baseURL, '--idle-timeout', '200', '--json'),
    );
    expect(code).toBe(1);
    const records = jsonLines(stdout);
    const retries = records.filter((record) => record.type === 'request_retry');
    expect(retries.map((record) => record.attempt)).toEqual([1, 2, 3]);
    for (const retry of retries) {
      expect(retry).toMatchObject({ maxRetries: 3, reason: 'no byte for 200 ms' });
      expect(retry.error).toMatchObject({ code: 'timeout' });
      expect(typeof retry.delayMs).toBe('number');
    }
    const types = records.map((record) => record.type);
    expect(types.indexOf('run_finished')).toBeGreaterThan(types.lastIndexOf('request_retry'));
  });
});

describe('messages a new user reads', () => {
  it('--idle-timeout that is not a number is refused, on the scripted model too', async () => {
    for (const [args, env] of [
      [['--flow', 'weather', '--idle-timeout', 'abc'], {}],
      [['--flow', 'weather'], { AGCORE_IDLE_TIMEOUT_MS: 'abc' }],
      [['chat', '--idle-timeout', '-5'], {}],
    ] as const) {
      const result = await runCli(args, { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('--idle-timeout ');
      expect(result.stderr).toContain(': give a positive number of milliseconds.');
      expect(result.stdout).toBe('');
    }
  });

  it('a closed port: one sentence, one full stop (no "..")', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const address = closed.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await new Promise((resolve) => closed.close(resolve));
    const result = await runCli(remote(`http://127.0.0.1:${port}/v1`));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`Cannot reach http://127.0.0.1:${port}/v1: `);
    expect(result.stderr).toContain('Is the server running, and is --base-url right?');
    expect(result.stderr).not.toContain('..');
    // The retries were shown as they happened.
    expect(result.stdout).toContain('↻ cannot connect — retrying (3/3)');
  });

  it('the header of a piped run fits 80 columns', async () => {
    const result = await runCli(['--flow', 'mcp']);
    expect(result.code).toBe(0);
    const header = result.stdout.slice(0, result.stdout.indexOf('\nyou ›')).split('\n');
    expect(header.join('\n')).toMatch(/tools: 7 built-in · everything \(MCP, pid \d+\)/);
    for (const line of header) expect(stringWidth(line)).toBeLessThanOrEqual(80);
  });
});

it('the greeting of a piped chat fits 80 columns', async () => {
  const result = await runCli(['chat'], { input: '/exit\n' });
  expect(result.code).toBe(0);
  const greeting = result.stdout.slice(0, result.stdout.indexOf('you ›')).split('\n');
  expect(greeting.join(' ')).toContain('tools (everything, filesystem MCP servers running)');
  for (const line of greeting) expect(stringWidth(line)).toBeLessThanOrEqual(80);
});

describe('--flow resume keeps the paused run out of the current folder', () => {
  it('writes it under the OS temp dir, says where, and resume goes on from there', async () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'agcore-cwd-'));
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'agcore-tmp-'));
    try {
      const first = await runCli(['--flow', 'resume'], { cwd, env: { TMPDIR: tmp } });
      expect(first.code).toBe(0);
      expect(readdirSync(cwd)).toEqual([]);
      const file = /its state is in (\S+)\. Resume it/.exec(first.stdout)?.[1];
      expect(file?.startsWith(tmp)).toBe(true);
      expect(file !== undefined && existsSync(file)).toBe(true);
      expect(first.stdout).toContain(`pnpm playground resume ${file} --approve yes`);
      const second = await runCli(['resume', file ?? '', '--approve', 'yes'], { cwd });
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('✔ done');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
