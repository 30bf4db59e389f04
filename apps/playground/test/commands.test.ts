import { describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './support/cli.js';

describe('tools and call', () => {
  it('tools lists every tool with source, permissions, policy and a schema summary', async () => {
    const result = await runCli(['tools']);
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toMatch(/\d+ tools \(7 built-in, \d+ mcp:everything, \d+ mcp:filesystem\)/);
    expect(out).toMatch(
      /^get_weather\s+allowed {2}built-in\n {2}read · city: string, unit\?: "celsius"\|"fahrenheit"$/m,
    );
    expect(out).toMatch(/^run_shell\s+refused {2}built-in\n {2}shell · /m);
    expect(out).toMatch(
      /^everything__get-sum\s+allowed {2}mcp:everything\n {2}read \(annotations\) · a: number, b: number$/m,
    );
    expect(out).toMatch(
      /^filesystem__write_file\s+refused {2}mcp:filesystem\n {2}write \(override\)/m,
    );
    expect(out).toMatch(/^filesystem__move_file\s+refused {2}mcp:filesystem\n {2}write, delete/m);
    // Names are what `call` takes: never cut, even the longest.
    expect(out).toMatch(
      /^everything__trigger-long-running-operation\s+allowed {2}mcp:everything$/m,
    );
    // Piped, everything fits 80 columns; what is cut ends in an ellipsis.
    const lines = out.split('\n');
    expect(Math.max(...lines.map((line) => [...line].length))).toBeLessThanOrEqual(80);
  });

  it('tools fits the width COLUMNS gives (a narrow pipe), cutting arguments, never names', async () => {
    const result = await runCli(['tools'], { env: { COLUMNS: '60' } });
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const longest = 'everything__trigger-long-running-operation';
    expect(lines.some((line) => line.startsWith(longest))).toBe(true);
    for (const line of lines.filter((line) => !line.startsWith(longest)))
      expect([...line].length).toBeLessThanOrEqual(60);
    expect(result.stdout).toMatch(/…$/m);
  });

  it('tools --json: one tool per line with its full schema; --allow changes the verdicts', async () => {
    const result = await runCli(['tools', '--json', '--allow', 'write']);
    expect(result.code).toBe(0);
    const tools = jsonLines(result.stdout) as unknown as Array<{
      name: string;
      allowed: boolean;
      schema: { properties?: object };
      source: string;
    }>;
    const write = tools.find((tool) => tool.name === 'filesystem__write_file');
    expect(write).toMatchObject({
      allowed: true,
      source: 'mcp:filesystem',
      permissionsFrom: 'override',
    });
    expect(write?.schema.properties).toHaveProperty('content');
    expect(tools.find((tool) => tool.name === 'filesystem__move_file')).toMatchObject({
      allowed: false,
    });
  });

  it('call runs a built-in tool', async () => {
    const result = await runCli(['call', 'get_weather', '{"city": "Paris"}']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/✓ get_weather \d+ ms/);
    expect(JSON.parse(result.stdout.slice(result.stdout.indexOf('{')))).toMatchObject({
      city: 'Paris',
      temperature: 18,
    });
  });

  it('call prints a text result (what MCP tools mostly return) as text', async () => {
    const result = await runCli(['call', 'everything__get-sum', '{"a": 1, "b": 2}']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^✓ everything__get-sum \d+ ms$/);
    expect(lines[1]).toBe('The sum of 1 and 2 is 3.');
  });

  it('call runs an MCP tool, with progress, and --json prints the result', async () => {
    const result = await runCli([
      'call',
      'everything__trigger-long-running-operation',
      '{"duration": 1, "steps": 2}',
      '--json',
    ]);
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    expect(lines.filter((line) => line.type === 'progress').length).toBeGreaterThanOrEqual(1);
    expect(lines.at(-1)).toMatchObject({
      type: 'result',
      toolName: 'everything__trigger-long-running-operation',
      output: 'Long running operation completed. Duration: 1 seconds, Steps: 2.',
    });
  });

  it('call of a refused tool: exit 1 and a hint', async () => {
    const result = await runCli(['call', 'run_shell', '{"command": "echo hi"}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/✗ run_shell .*permission_denied/);
    expect(result.stderr).toContain('--allow shell');
  });

  it('call with --allow shell really runs the command', async () => {
    const result = await runCli([
      'call',
      'run_shell',
      '{"command": "echo hi from the sandbox"}',
      '--allow',
      'shell',
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('"stdout": "hi from the sandbox\\n"');
  });

  it('call with arguments that break the schema: exit 2 and the validation message', async () => {
    const result = await runCli(['call', 'calculator', '{"expr": "1+1"}']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/invalid_arguments: .*expression/);
  });

  it('call with an unknown tool or bad JSON: exit 2, clear message, no stack', async () => {
    const unknown = await runCli(['call', 'get-sum', '{}']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown tool 'get-sum'. Did you mean 'everything__get-sum'?");
    const empty = await runCli(['call', '']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/Unknown tool ''\. The tools command lists all \d+\./);
    const badJson = await runCli(['call', 'get_weather', '{city: Paris}']);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('The arguments are not valid JSON');
    for (const output of [unknown.stderr, badJson.stderr]) expect(output).not.toMatch(/\n\s+at /);
  });
});
