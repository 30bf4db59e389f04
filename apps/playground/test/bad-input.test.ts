import { describe, expect, it } from 'vitest';
import { noStack, runCli } from './support/cli.js';

describe('bad input: a clear message, a non-zero exit, never a stack trace', () => {
  it('an unknown flow', async () => {
    const result = await runCli(['--flow', 'nope']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown flow 'nope'. Flows: tour, weather, parallel");
    expect(result.stderr).not.toMatch(noStack);
  });

  it('an unknown command: what exists, and --flow when the word is a flow', async () => {
    const unknown = await runCli(['foo']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "Unknown command 'foo'. Commands: chat, tools, call, resume, web;",
    );
    const typo = await runCli(['tool']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("Unknown command 'tool'. Did you mean 'tools'?");
    const flow = await runCli(['weather']);
    expect(flow.code).toBe(2);
    expect(flow.stderr).toContain("'weather' is a flow, not a command: run it with --flow weather");
    const chatJson = await runCli(['chat', '--json']);
    expect(chatJson.code).toBe(2);
    expect(chatJson.stderr).toContain('chat is interactive and has no --json output');
    for (const result of [unknown, typo, flow, chatJson]) {
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toMatch(noStack);
    }
  });

  it('an unknown option and a bad permission', async () => {
    const option = await runCli(['--flw', 'weather']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("unknown option '--flw'");
    const permission = await runCli(['--flow', 'weather', '--allow', 'everything']);
    expect(permission.code).toBe(2);
    expect(permission.stderr).toContain('--allow everything: not a permission');
  });

  it('a base URL without a model', async () => {
    const result = await runCli(['--base-url', 'http://127.0.0.1:9/v1']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('no model: pass --model NAME or set AGCORE_MODEL');
  });

  it('an empty --model or --base-url is refused, not sent to a server', async () => {
    for (const args of [
      ['--model', '', '--base-url', 'http://127.0.0.1:9/v1'],
      ['--base-url', ' ', '--model', 'gpt-4o-mini'],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/--(model|base-url) is empty: give a value/);
      expect(result.stderr).not.toMatch(noStack);
    }
  });

  it('call and tools offer no model options, which they would ignore', async () => {
    for (const command of ['call', 'tools']) {
      const help = await runCli([command, '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('--mcp-config');
      expect(help.stdout).not.toMatch(/--model|--base-url|--api-key|--scripted/);
    }
    const flowHelp = await runCli(['--help']);
    expect(flowHelp.stdout).toMatch(/--model <name>/);
  });

  it('a call that times out names the CLI flag that raises the limit', async () => {
    const result = await runCli(['call', 'slow_task', '{"seconds": 5}', '--timeout', '100']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('timeout:');
    expect(result.stderr).toContain(
      'hint: give it more time with --timeout MS (this call had 100 ms)',
    );
  });
});
