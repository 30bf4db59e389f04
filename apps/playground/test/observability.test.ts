import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli } from './support/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'agcore-playground-observe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

describe('--trace', () => {
  it('prints the span tree of the loop after the run, each line within 80 columns when piped', async () => {
    const result = await runCli(['--flow', 'recover', '--trace']);
    expect(result.code, result.stderr).toBe(0);
    const tree = result.stdout.slice(result.stdout.indexOf('\ntrace ('));
    const lines = tree.split('\n').filter((line) => line !== '');
    expect(lines[0]).toBe('trace (6 spans)');
    expect(lines[1]).toMatch(/^trace [0-9a-f]{32}$/);
    expect(lines.slice(2).map((line) => line.replace(/ {2}\d+(\.\d)? m?s.*$/, ''))).toEqual([
      'invoke_agent',
      '├─ chat scripted',
      '├─ execute_tool calculator',
      '├─ chat scripted',
      '├─ execute_tool calculator',
      '└─ chat scripted',
    ]);
    expect(lines[2]).toMatch(/invoke_agent {2}[\d.]+ m?s {2}model=scripted in=\d+ out=\d+/);
    expect(lines[3]).toMatch(/finish=tool_calls$/);
    expect(lines[4]).toMatch(/call=call_\d+ error=invalid_arguments$/);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(80);
  });

  it('cuts long lines to COLUMNS with an ellipsis, and gives the spans whole with --json', async () => {
    const narrow = await runCli(['--flow', 'recover', '--trace'], { env: { COLUMNS: '40' } });
    const tree = narrow.stdout.slice(narrow.stdout.indexOf('\ntrace ('));
    for (const line of tree.split('\n'))
      expect([...line.replace(ansi, '')].length).toBeLessThanOrEqual(40);
    expect(tree).toContain('…');
    const json = await runCli(['--flow', 'recover', '--trace', '--json']);
    const trace = jsonLines(json.stdout).find((line) => line.type === 'trace') as unknown as {
      spans: { name: string; parentSpanId?: string; attributes: Record<string, unknown> }[];
    };
    expect(trace.spans.map((span) => span.name).sort()).toEqual([
      'chat scripted',
      'chat scripted',
      'chat scripted',
      'execute_tool calculator',
      'execute_tool calculator',
      'invoke_agent',
    ]);
  });
});

describe('--otlp', () => {
  it('exports the spans to an OTLP/HTTP collector with the official exporter', async () => {
    const received: { url: string; type: string; body: string }[] = [];
    const collector = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', () => {
        received.push({
          url: request.url ?? '',
          type: request.headers['content-type'] ?? '',
          body,
        });
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    const address = collector.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    try {
      const result = await runCli(['--flow', 'weather', '--otlp', `http://127.0.0.1:${port}`]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
    } finally {
      collector.close();
    }
    expect(received.length).toBeGreaterThanOrEqual(1);
    expect(received[0]?.url).toBe('/v1/traces');
    expect(received[0]?.type).toContain('application/json');
    const names = received.flatMap((request) =>
      [...request.body.matchAll(/"name":"([^"]+)"/g)].map((match) => match[1]),
    );
    expect(names).toEqual(
      expect.arrayContaining(['invoke_agent', 'chat scripted', 'execute_tool get_weather']),
    );
  });

  it('refuses a URL that is not http(s), and says so', async () => {
    const result = await runCli(['--flow', 'weather', '--otlp', 'ftp://collector']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--otlp ftp://collector: use an http:// or https:// URL');
  });
});

describe('--audit', () => {
  it('writes one JSON line per tool call, refused and invalid ones too', async () => {
    const file = join(dir, 'recover.jsonl');
    const result = await runCli(['--flow', 'recover', '--audit', file]);
    expect(result.code, result.stderr).toBe(0);
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      tool: 'calculator',
      category: 'built-in',
      callId: expect.stringMatching(/^call_/),
      sessionId: expect.any(String),
      traceId: expect.any(String),
      outcome: 'error',
      error: { code: 'invalid_arguments' },
    });
    expect(lines[1]).toMatchObject({
      tool: 'calculator',
      outcome: 'ok',
      result: expect.anything(),
    });
    expect(typeof lines[1].durationMs).toBe('number');
    expect(new Date(lines[1].time).getTime()).toBeGreaterThan(0);
    const denied = join(dir, 'denied.jsonl');
    await runCli(['--flow', 'denied', '--audit', denied]);
    expect(JSON.parse(readFileSync(denied, 'utf8').trim())).toMatchObject({
      tool: 'run_shell',
      outcome: 'error',
      error: { code: 'permission_denied' },
    });
  });

  it('redacts the secrets the run names, and bounds a huge argument', async () => {
    const file = join(dir, 'call.jsonl');
    const secret = 'hunter2-very-secret';
    const result = await runCli(
      [
        'call',
        'everything__echo',
        JSON.stringify({ message: `Paris ${secret}` }),
        '--audit',
        file,
        '--audit-redact',
        'MY_SECRET',
      ],
      { env: { MY_SECRET: secret } },
    );
    expect(result.code, result.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(secret);
    expect(JSON.parse(text)).toMatchObject({
      tool: 'everything__echo',
      category: 'mcp:everything',
      arguments: { message: 'Paris [redacted]' },
      outcome: 'ok',
      result: 'Echo: Paris [redacted]',
    });
    const huge = join(dir, 'huge.jsonl');
    // 100 000 characters: close to what one command-line argument may hold on Linux.
    const big = await runCli([
      'call',
      'get_weather',
      JSON.stringify({ city: 'x'.repeat(100_000) }),
      '--audit',
      huge,
    ]);
    expect(big.stderr).not.toContain('--audit');
    const line = readFileSync(huge, 'utf8');
    expect(line.length).toBeLessThan(10_000);
    expect(JSON.parse(line).arguments.city).toMatch(/…\[98000 more characters\]$/);
  });

  it('says so when the file cannot be opened', async () => {
    const result = await runCli([
      '--flow',
      'weather',
      '--audit',
      join(dir, 'missing', 'audit.jsonl'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--audit .*cannot open the file .*Give a writable path/);
  });
});
