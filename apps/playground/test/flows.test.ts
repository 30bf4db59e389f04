import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

const ansi = new RegExp(`${String.fromCharCode(27)}\\[`);

// Every scripted flow, run as a user runs it (piped, so plain text), with its output checked.
describe('scripted flows (plain text)', () => {
  it('the default run (tour) says it is scripted, streams the timeline and prints the summary', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).not.toMatch(ansi); // piped: no colour codes
    expect(out).toContain('flow tour');
    expect(out).toMatch(
      /model: scripted \(ScriptedProvider.*for a real model:\s+--base-url URL --model NAME/,
    );
    expect(out).toMatch(/everything \(MCP, pid \d+\): \d+ tools/);
    expect(out).toContain('→ get_weather {"city":"Beijing"}');
    expect(out).toContain('→ get_weather {"city":"London"}');
    expect(out).toMatch(/✓ get_weather \d+ ms \{"city":"London","temperature":14/);
    expect(out).toMatch(/✓ calculator \d+ ms \{"expression":"\(22 \+ 14\) \/ 2","result":18\}/);
    // MCP progress notifications reach the timeline.
    expect(out).toMatch(/… everything__trigger-long-running-operation progress \d\/4/);
    expect(out).toMatch(
      /✓ everything__trigger-long-running-operation [\d.]+ s "Long running operation completed/,
    );
    expect(out).toContain('⏎ turn 1 complete: tool_calls');
    expect(out).toContain('⏎ turn 4 complete: stop');
    expect(out).toContain('✔ done');
    expect(out).toMatch(/│ turns\s+│\s+4 │/);
    expect(out).toMatch(/│ tool calls\s+│\s+4 │/);
    expect(out).toMatch(/│ failures\s+│\s+0 │/);
    expect(out).toMatch(/│ tokens\s+│\s+\d+ │ .*estimated/);
    expect(out).toMatch(/│ wall time\s+│/);
    // The summary box fits 80 columns, its notes wrapped inside it.
    const box = out
      .slice(out.indexOf('\nsummary\n'))
      .split('\n')
      .filter((line) => /^[┌│└]/.test(line));
    expect(box.length).toBeGreaterThan(5);
    for (const line of box) expect([...line].length).toBeLessThanOrEqual(80);
    expect(out).toMatch(/│ +│ +│ model reports none\) +│/);
  });

  it('weather: the two-turn example', async () => {
    const result = await runCli(['--flow', 'weather']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('you › What is the weather in Beijing?');
    expect(result.stdout).toContain('assistant › Let me check the weather in Beijing...');
    expect(result.stdout).toMatch(
      /✓ get_weather \d+ ms \{"city":"Beijing","temperature":22,"unit":"°C","condition":"sunny"/,
    );
    expect(result.stdout).toContain('assistant › It is 22 °C and sunny in Beijing today');
    expect(result.stdout).toMatch(/│ turns\s+│\s+2 │/);
  });

  it('parallel: two tools in one turn, both started before either result', async () => {
    const result = await runCli(['--flow', 'parallel']);
    expect(result.code).toBe(0);
    const out = result.stdout;
    const weather = out.indexOf('→ get_weather {"city":"Beijing"}');
    const notes = out.indexOf('→ read_file {"path":"notes.txt"}');
    const turnEnd = out.indexOf('⏎ turn 1 complete: tool_calls');
    expect(weather).toBeGreaterThan(0);
    expect(notes).toBeGreaterThan(weather);
    expect(turnEnd).toBeGreaterThan(notes);
    expect(out).toMatch(/✓ get_weather \d+ ms \{"city":"Beijing","temperature":22/);
    expect(out).toMatch(
      /✓ read_file \d+ ms \{"path":"notes\.txt","bytes":\d+,"content":"Playground notes/,
    );
    expect(out.indexOf('✓ get_weather')).toBeGreaterThan(turnEnd);
    expect(out).toContain('── turn 2');
    expect(out).not.toContain('turn 3');
    expect(out).toMatch(/│ tool calls\s+│\s+2 │/);
    // --json: both executions start before either completes.
    const json = await runCli(['--flow', 'parallel', '--json']);
    const types = json.stdout
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { type: string }).type);
    const started = types.flatMap((type, index) =>
      type === 'tool_execution_started' ? [index] : [],
    );
    expect(started).toHaveLength(2);
    expect(types.indexOf('tool_execution_completed')).toBeGreaterThan(Math.max(...started));
  });

  it('mcp: echo, get-sum and the long-running operation on server-everything', async () => {
    const result = await runCli(['--flow', 'mcp']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/✓ everything__echo \d+ ms "Echo: hello from agcore"/);
    expect(result.stdout).toMatch(/✓ everything__get-sum \d+ ms "The sum of 17 and 25 is 42\."/);
    expect(result.stdout).toMatch(/progress \d\/6/);
    expect(result.stdout).toMatch(
      /✓ everything__trigger-long-running-operation [\d.]+ s .*Steps: 6/,
    );
  });

  it('filesystem: reads pass, the write is refused by the default policy, history whole', async () => {
    const result = await runCli(['--flow', 'filesystem']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/✓ filesystem__list_directory .*\[FILE\] notes\.txt/);
    expect(result.stdout).toMatch(/✓ filesystem__read_text_file .*Playground notes/);
    expect(result.stdout).toMatch(
      /✗ filesystem__write_file \d+ ms permission_denied: .*needs 'write'/,
    );
    // The ending the flow demonstrates is normal output: stdout, exit 0, nothing on stderr.
    expect(result.stdout).toContain('● ended as this flow shows: tool_error');
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain(
      'hint: The default policy allows read and network only. Run again with --allow write',
    );
    expect(result.stdout).toContain('history (6 messages');
    expect(result.stdout).toMatch(/ 6 tool\s+call_\d+ Error \[permission_denied\]/);
  });

  it('filesystem --allow write: the write goes through and the file is really written', async () => {
    const result = await runCli(['--flow', 'filesystem', '--allow', 'write', '--json']);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const completed = lines.filter((line) => line.type === 'tool_execution_completed');
    const write = completed.find((line) => line.toolName === 'filesystem__write_file');
    expect(write.error).toBeUndefined();
    expect(JSON.stringify(write.output)).toContain('Successfully wrote');
    const finished = lines.at(-1);
    expect(finished).toMatchObject({
      type: 'run_finished',
      outcome: 'complete',
      scriptStepsLeft: 0,
    });
    // The sandbox is removed at the end, so the file is gone with it.
    const started = lines[0];
    expect(() => readFileSync(`${started.sandbox}/summary.txt`)).toThrow();
  });

  it('denied: run_shell refused by the checker; the loop ends with the history whole', async () => {
    // A wider pipe (COLUMNS) shows more of each history line.
    const result = await runCli(['--flow', 'denied'], { env: { COLUMNS: '120' } });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /✗ run_shell \d+ ms permission_denied: .*needs 'shell'.*shell denied/,
    );
    expect(result.stdout).toContain('history (3 messages');
    expect(result.stdout).toMatch(
      / 2 assistant I will run the command\.\s+→ run_shell\(\{"command":"ls -la"\}\)/,
    );
    expect(result.stdout).toMatch(/ 3 tool\s+call_\d+ Error \[permission_denied\]/);
    expect(result.stdout).toMatch(/│ failures\s+│\s+1 │/);
    expect(result.stdout).toContain('hint: run_shell needs the shell permission');
    // With --allow shell the same flow really runs the command and completes.
    const allowed = await runCli(['--flow', 'denied', '--allow', 'shell']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/✓ run_shell \d+ ms \{"exitCode":0,"stdout":"total /);
    expect(allowed.stdout).toContain('✔ done');
  });

  it('recover: invalid arguments go back to the model, which corrects itself', async () => {
    const result = await runCli(['--flow', 'recover']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/✗ calculator \d+ ms invalid_arguments: .*expression/);
    expect(result.stdout).toMatch(/✓ calculator \d+ ms \{"expression":"6 \* 7","result":42\}/);
    expect(result.stdout).toContain('assistant › 6 times 7 is 42.');
    expect(result.stdout).toContain('✔ done');
  });

  it('max-turns: stops after 3 turns with max_turns_exceeded and keeps the history', async () => {
    const result = await runCli(['--flow', 'max-turns']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('● ended as this flow shows: max_turns_exceeded');
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('history (7 messages');
    expect(result.stdout).not.toContain('turn 4');
    expect(result.stdout).not.toContain('"city":"Paris"');
  });

  it('truncation: the result is cut for the model and shown whole in the event', async () => {
    const result = await runCli(['--flow', 'truncation', '--json']);
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const completed = lines.find((line) => line.type === 'tool_execution_completed');
    expect(completed.truncated).toBe(true);
    expect(completed.output.bytes).toBeGreaterThan(40_000);
    expect(completed.output.content.length).toBe(completed.output.bytes);
    const history = lines.at(-1).history as Array<{ role: string; content: string }>;
    const toolMessage = history.find((message) => message.role === 'tool');
    expect(Buffer.byteLength(toolMessage?.content ?? '')).toBeLessThan(2300);
    const plain = await runCli(['--flow', 'truncation']);
    expect(plain.stdout).toContain(
      '[cut to maxToolResultBytes for the model; the event has it whole]',
    );
  });

  it('timeout: the slow tool times out (recoverable), the model runs the short one', async () => {
    const result = await runCli(['--flow', 'timeout']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/✗ slow_task [\d.]+ s timeout: /);
    expect(result.stdout).toMatch(/… slow_task progress/);
    expect(result.stdout).toMatch(/✓ slow_task \d+ ms \{"done":true,"seconds":0\.5\}/);
    expect(result.stdout).toContain('✔ done');
  });

  it('--list shows every flow with one line each', async () => {
    const result = await runCli(['--list']);
    expect(result.code).toBe(0);
    for (const name of [
      'tour',
      'weather',
      'parallel',
      'mcp',
      'filesystem',
      'denied',
      'recover',
      'max-turns',
      'truncation',
      'timeout',
      'cancel',
    ]) {
      expect(result.stdout).toMatch(new RegExp(`^  ${name}\\s+\\S`, 'm'));
    }
  });

  it('--help: the options, the commands, the flows and examples', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: agcore-playground [options] [command]');
    expect(result.stdout).toMatch(/--mcp-config <file>/);
    expect(result.stdout).toMatch(/call \[options\] <name> \[arguments\]/);
    expect(result.stdout).toContain('Flows: tour, weather, parallel, mcp, filesystem, denied');
    expect(result.stdout).toContain('agcore-playground call get_weather \'{"city": "Paris"}\'');
  });

  it('--list --json: one flow per line', async () => {
    const result = await runCli(['--list', '--json']);
    expect(result.code).toBe(0);
    const listed = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { name: string; summary: string; default: boolean });
    expect(listed).toHaveLength(16);
    expect(listed[0]).toMatchObject({ name: 'tour', default: true });
    expect(listed.find((flow) => flow.name === 'cancel')?.summary).toContain('Ctrl-C');
  });

  it('colours on request (FORCE_COLOR), none with NO_COLOR', async () => {
    const colored = await runCli(['--flow', 'weather'], { env: { FORCE_COLOR: '1' } });
    expect(colored.stdout).toMatch(ansi);
    const plain = await runCli(['--flow', 'weather'], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(plain.stdout).not.toMatch(ansi);
  });
});
