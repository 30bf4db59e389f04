import { describe, expect, it } from 'vitest';
import { collect, descendants, isAlive, startCli, waitFor } from './support/cli.js';

async function waitGone(pids: readonly number[], timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (pids.some(isAlive) && Date.now() - started < timeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('cancel: Ctrl-C during a tool', () => {
  it('SIGINT stops the MCP call, prints the history, exits 130 and leaves no process', async () => {
    const child = startCli(['--flow', 'cancel']);
    const result = collect(child, 90_000);
    await waitFor(result.output, (text) => /progress \d+\/30/.test(text), 45_000);
    const serverPid = Number(/everything \(MCP, pid (\d+)\)/.exec(result.output())?.[1]);
    expect(isAlive(serverPid)).toBe(true);
    const before = descendants(child.pid as number);
    expect(before).toContain(serverPid);
    child.kill('SIGINT');
    const final = await result;
    expect(final.code).toBe(130);
    expect(final.stdout).toContain('⏹ Ctrl-C: cancelling the running request and tools');
    expect(final.stdout).toMatch(/✗ everything__trigger-long-running-operation [\d.]+ s cancelled/);
    expect(final.stdout).toContain(
      '⏹ cancelled: the request and the running tools were stopped; the history below is whole.',
    );
    expect(final.stdout).toContain('history (3 messages');
    expect(final.stdout).toMatch(/ 3 tool\s+call_\d+ Error \[cancelled\]/);
    expect(final.stdout).toMatch(/│ turns\s+│\s+1 │/);
    await waitGone(before);
    for (const pid of before) expect(isAlive(pid)).toBe(false);
  });

  it('Ctrl-C in a terminal (SIGINT to the whole process group, the server too) still ends cleanly', async () => {
    const child = startCli(['--flow', 'cancel', '--json'], { detached: true });
    const result = collect(child, 90_000);
    await waitFor(
      result.output,
      (text) => text.includes('"type":"tool_execution_progress"'),
      45_000,
    );
    const before = descendants(child.pid as number);
    expect(before.length).toBeGreaterThanOrEqual(1);
    process.kill(-(child.pid as number), 'SIGINT');
    const final = await result;
    expect(final.code).toBe(130);
    const finished = JSON.parse(final.stdout.trim().split('\n').at(-1) as string);
    expect(finished).toMatchObject({ type: 'run_finished', outcome: 'cancelled', exitCode: 130 });
    const history = finished.history as Array<{ role: string; tool_call_id?: string }>;
    // The JSON history is cycle.messages() itself: the system prompt first.
    expect(history.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    await waitGone(before);
    for (const pid of before) expect(isAlive(pid)).toBe(false);
  });
});
