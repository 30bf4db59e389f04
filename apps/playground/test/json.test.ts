import { describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './support/cli.js';

describe('--json: one JSON event per line', () => {
  it('weather: run_started, the cycle events in the design order, run_finished', async () => {
    const result = await runCli(['--flow', 'weather', '--json']);
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout); // throws if any line is not JSON
    expect(lines[0]).toMatchObject({
      type: 'run_started',
      flow: 'weather',
      scripted: true,
      model: 'scripted',
    });
    expect(lines[0]?.tools).toEqual(
      expect.arrayContaining(['get_weather', 'calculator', 'read_file']),
    );
    const last = lines.at(-1);
    expect(last).toMatchObject({
      type: 'run_finished',
      outcome: 'complete',
      exitCode: 0,
      scriptStepsLeft: 0,
    });
    expect(last?.summary).toMatchObject({
      turns: 2,
      toolCalls: 1,
      failures: 0,
      tokens: 'estimated',
    });
    // cycle.messages(): system prompt, user, assistant with the call, tool, final assistant.
    const history = (last?.history ?? []) as { role: string }[];
    expect(history.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
    ]);

    const events = lines.slice(1, -1);
    const types = events.map((event) => event.type);
    // Turn 1: text deltas, tool call deltas, started, turn_complete; then the execution.
    const firstText = types.indexOf('assistant_text_delta');
    const firstDelta = types.indexOf('tool_call_delta');
    const started = types.indexOf('tool_execution_started');
    const turn1 = types.indexOf('turn_complete');
    const completed = types.indexOf('tool_execution_completed');
    const turn2 = types.lastIndexOf('turn_complete');
    expect(firstText).toBe(0);
    expect(firstDelta).toBeGreaterThan(firstText);
    expect(started).toBeGreaterThan(firstDelta);
    expect(turn1).toBeGreaterThan(started);
    expect(completed).toBeGreaterThan(turn1);
    expect(turn2).toBeGreaterThan(completed);
    expect(events[turn1]).toMatchObject({ reason: 'tool_calls' });
    expect(events[turn2]).toMatchObject({ reason: 'stop' });
    expect(events[started]).toMatchObject({ toolName: 'get_weather', input: { city: 'Beijing' } });
    expect(events[completed]).toMatchObject({
      toolName: 'get_weather',
      output: { temperature: 22 },
      truncated: false,
    });
    // The arguments streamed in several pieces and add up to the input.
    const argumentText = events
      .filter((event) => event.type === 'tool_call_delta')
      .map((event) => event.argumentsDelta)
      .join('');
    expect(JSON.parse(argumentText)).toEqual({ city: 'Beijing' });
    const text = events
      .filter((event) => event.type === 'assistant_text_delta')
      .map((event) => event.text)
      .join('');
    expect(text).toBe(
      'Let me check the weather in Beijing...It is 22 °C and sunny in Beijing today, with 31% humidity.',
    );
  });

  it('mcp: progress events from MCP notifications, with total', async () => {
    const result = await runCli(['--flow', 'mcp', '--json']);
    expect(result.code).toBe(0);
    const progress = jsonLines(result.stdout).filter(
      (line) => line.type === 'tool_execution_progress',
    );
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.at(-1)).toMatchObject({
      toolName: 'everything__trigger-long-running-operation',
      progress: { progress: 6, total: 6 },
    });
  });

  it('denied: the error is in run_finished as JSON, with the ToolError code', async () => {
    const result = await runCli(['--flow', 'denied', '--json']);
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    const completed = lines.find((line) => line.type === 'tool_execution_completed');
    expect(completed?.error).toMatchObject({
      name: 'ToolError',
      code: 'permission_denied',
      toolName: 'run_shell',
      recoverable: false,
    });
    expect(lines.at(-1)).toMatchObject({
      type: 'run_finished',
      outcome: 'permission_denied',
      expected: 'permission_denied',
      error: { name: 'LlmError', code: 'tool_error' },
    });
  });
});
