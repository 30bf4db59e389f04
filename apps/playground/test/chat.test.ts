import { describe, expect, it } from 'vitest';
import { collect, descendants, isAlive, runCli, startCli, waitFor } from './support/cli.js';

describe('chat, driven through stdin', () => {
  it('answers with tools and handles /tools /history /permissions /allow /clear /exit', async () => {
    const input = [
      'weather in Paris',
      '/tools',
      '/history',
      'run echo hello',
      '/permissions',
      '/allow shell',
      'run echo hello',
      '/clear',
      '/history',
      '/nope',
      '/exit',
      'weather in Tokyo',
    ].join('\n');
    const result = await runCli(['chat'], { input: `${input}\n` });
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain('agcore playground chat');
    expect(out).toContain('model: scripted');
    // Piped input is echoed after the prompt, so the output reads as a transcript.
    expect(out).toContain('you › weather in Paris\n── turn 1');
    expect(out).toContain('you › /exit\nbye');
    expect(out).toMatch(/✓ get_weather \d+ ms \{"city":"Paris","temperature":18/);
    expect(out).toMatch(/\(2 turns · 1 tool call · 0 failed · ~\d+ tokens · /);
    // /tools
    expect(out).toMatch(/● get_weather \[built-in\] read/);
    expect(out).toMatch(/○ run_shell \[built-in\] shell/);
    expect(out).toMatch(/● everything__get-sum \[mcp:everything\] read/);
    // /history after the first exchange: user, assistant+call, tool, assistant
    expect(out).toMatch(
      / 1 user\s+weather in Paris\n 2 assistant .*get_weather\(\{"city":"Paris"\}\) call_\d+\n 3 tool .*\n 4 assistant Here is what the tools returned/,
    );
    // refused, then /allow shell, then it runs
    expect(out).toMatch(/✗ run_shell \d+ ms permission_denied/);
    expect(out).toContain('hint: /permissions shows the policy; /allow PERM changes it.');
    expect(out).toMatch(/refused: .*run_shell/);
    expect(out).toContain('policy: allow read, network, shell · deny delete');
    expect(out).toMatch(/✓ run_shell \d+ ms \{"exitCode":0,"stdout":"hello\\n"/);
    // /clear empties the history
    expect(out).toContain('(history cleared; a new conversation starts)');
    expect(out).toContain('(no messages yet)');
    expect(out).toContain('Unknown command /nope.');
    // /exit stops reading: the line after it is never run
    expect(out).not.toContain('"city":"Tokyo"');
    expect(out).toContain('bye');
  });

  it('end of input ends the session cleanly', async () => {
    const result = await runCli(['chat'], { input: 'calculate 2 ^ 10\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/✓ calculator \d+ ms \{"expression":"2 \^ 10","result":1024\}/);
  });

  it('Ctrl-C (SIGINT) cancels the running turn, not the session', async () => {
    const child = startCli(['chat']);
    const result = collect(child, 90_000);
    child.stdin?.write('long 30\n');
    await waitFor(result.output, (text) => text.includes('progress 1/30'), 45_000);
    const serverPids = descendants(child.pid as number);
    expect(serverPids.length).toBeGreaterThanOrEqual(2);
    child.kill('SIGINT');
    await waitFor(
      result.output,
      (text) => text.includes('turn cancelled; the history is whole'),
      20_000,
    );
    // The session goes on: the MCP servers still run and answer.
    child.stdin?.write('sum 40 2\n');
    await waitFor(result.output, (text) => text.includes('The sum of 40 and 2 is 42.'), 20_000);
    child.stdin?.write('/history\n/exit\n');
    const final = await result;
    expect(final.code).toBe(0);
    expect(final.stdout).toMatch(/✗ everything__trigger-long-running-operation [\d.]+ s cancelled/);
    expect(final.stdout).toMatch(/ 3 tool\s+call_\d+ Error \[cancelled\]/);
    for (const pid of serverPids) expect(isAlive(pid)).toBe(false);
  });
});
