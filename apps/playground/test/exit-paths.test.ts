import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { collect, descendants, isAlive, startCli, waitFor } from './support/cli.js';

// Every way out of the playground must stop its MCP servers and remove its sandbox. Each run
// gets its own TMPDIR, so "nothing left" is checked on exactly the directory it made.

const scratch = mkdtempSync(path.join(tmpdir(), 'agcore-playground-exits-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
/** A fresh, empty TMPDIR for one run of the CLI. */
function freshTmp(): string {
  return mkdtempSync(path.join(scratch, 'run-'));
}

function config(name: string, servers: Record<string, unknown>): string {
  const file = path.join(scratch, name);
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  return file;
}

const stubborn = config('stubborn.json', {
  stubborn: {
    command: process.execPath,
    args: [path.join(path.dirname(fileURLToPath(import.meta.url)), 'support/stubborn-server.mjs')],
  },
});
const hanging = config('hanging.json', {
  hanging: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
});

async function waitGone(pids: readonly number[], timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (pids.some(isAlive) && Date.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('exit paths leave no process and no sandbox behind', () => {
  it('a closed pipe (`| head -1`): quiet exit, servers stopped, sandbox removed', async () => {
    const tmp = freshTmp();
    const child = startCli(['--flow', 'mcp'], { env: { TMPDIR: tmp } });
    const result = collect(child, 60_000);
    await waitFor(result.output, (text) => /everything \(MCP, pid \d+\)/.test(text), 45_000);
    const before = descendants(child.pid as number);
    expect(before.length).toBeGreaterThanOrEqual(1);
    expect(readdirSync(tmp)).toHaveLength(1); // the sandbox, while it runs
    child.stdout?.destroy(); // the reader went away, as `head` does after its line
    const final = await result;
    expect(final.code).toBe(0);
    expect(final.stderr).not.toMatch(/EPIPE|\n\s+at /);
    await waitGone(before);
    for (const pid of before) expect(isAlive(pid)).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('a second Ctrl-C while a server will not stop: exit 130 at once, the server killed, sandbox removed', async () => {
    const tmp = freshTmp();
    const child = startCli(['--flow', 'cancel', '--json', '--mcp-config', stubborn], {
      env: { TMPDIR: tmp },
    });
    const result = collect(child, 90_000);
    await waitFor(result.output, (text) => text.includes('"tool_execution_progress"'), 45_000);
    const started = JSON.parse(result.output().split('\n')[0] as string) as {
      servers: Array<{ name: string; pid: number }>;
    };
    const stubbornPid = started.servers.find((server) => server.name === 'stubborn')?.pid;
    expect(stubbornPid).toBeGreaterThan(0);
    const before = descendants(child.pid as number);
    expect(before).toContain(stubbornPid);
    child.kill('SIGINT');
    // The run is over and reported; the playground now waits for the stubborn server to stop.
    await waitFor(result.output, (text) => text.includes('"type":"run_finished"'), 30_000);
    child.kill('SIGINT');
    const final = await result;
    expect(final.code).toBe(130);
    expect(final.stderr).toContain('Ctrl-C again: quitting at once, MCP servers killed.');
    await waitGone(before);
    for (const pid of before) expect(isAlive(pid)).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('Ctrl-C while servers are still starting: exit 130, even a server in its handshake is stopped', async () => {
    const tmp = freshTmp();
    const child = startCli(['tools', '--mcp-config', hanging], { env: { TMPDIR: tmp } });
    const result = collect(child, 60_000);
    // everything, filesystem and the server that never answers the handshake.
    await waitFor(
      () => String(descendants(child.pid as number).length),
      (n) => Number(n) >= 3,
    );
    const before = descendants(child.pid as number);
    child.kill('SIGINT');
    const final = await result;
    expect(final.code).toBe(130);
    expect(final.stderr).not.toMatch(/\n\s+at /);
    await waitGone(before);
    for (const pid of before) expect(isAlive(pid)).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('SIGTERM to chat cancels the turn, stops the servers and exits 143', async () => {
    const tmp = freshTmp();
    const child = startCli(['chat'], { env: { TMPDIR: tmp } });
    const result = collect(child, 60_000);
    child.stdin?.write('long 30\n');
    await waitFor(result.output, (text) => text.includes('progress 1/30'), 45_000);
    const before = descendants(child.pid as number);
    expect(before.length).toBeGreaterThanOrEqual(2);
    child.kill('SIGTERM');
    const final = await result;
    expect(final.code).toBe(143);
    expect(final.stdout).toContain(
      'turn cancelled; the history is whole (3 messages after the system prompt).',
    );
    expect(final.stdout).toContain('bye');
    await waitGone(before);
    for (const pid of before) expect(isAlive(pid)).toBe(false);
    expect(readdirSync(tmp)).toEqual([]);
  });
});
