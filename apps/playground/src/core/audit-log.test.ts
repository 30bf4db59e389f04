import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { awaitInput, ToolError } from '@agcore/tools-core';
import type { ToolInvocation } from '@agcore/tools-registry';
import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog, auditSecrets } from './audit-log.js';

const dir = mkdtempSync(join(tmpdir(), 'agcore-audit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function invocation(input: unknown, output: ToolInvocation['output']): ToolInvocation {
  return {
    toolName: 'tool',
    callId: 'c1',
    input,
    output,
    durationMs: 1.23456,
    sessionId: 's',
    traceId: 't',
  };
}

describe('AuditLog', () => {
  it('writes what it can of hostile arguments, one valid bounded line each', async () => {
    const file = join(dir, 'hostile.jsonl');
    const log = AuditLog.open(file, []);
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    const getter = {
      get secret() {
        throw new Error('no reading');
      },
    };
    const huge = { list: new Array(1_000_000).fill('y'.repeat(100)), text: 'z'.repeat(5_000_000) };
    for (const input of [cycle, proxy, getter, huge, 10n, undefined]) {
      log.onInvocation(invocation(input, { ok: true, value: 'fine' }), undefined);
    }
    expect(await log.close()).toBeUndefined();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(64 * 1024 + 200);
    const parsed = lines.map((line) => JSON.parse(line));
    expect(parsed[0].arguments).toEqual({ name: 'loop', self: '[Circular]' });
    expect(parsed[1].arguments).toBe('[unreadable: trap]');
    expect(parsed[2].arguments).toEqual({ secret: '[unreadable: no reading]' });
    expect(parsed[4].arguments).toBe('[BigInt 10]');
    expect(parsed[5].arguments).toBeNull();
    expect(parsed[0]).toMatchObject({
      callId: 'c1',
      sessionId: 's',
      traceId: 't',
      durationMs: 1.235,
    });
  });

  it('writes a tool that asks back as its own outcome, awaiting_input, with its question redacted', () => {
    const log = AuditLog.open(join(dir, 'asked.jsonl'), ['sk-live-123456']);
    const asked = awaitInput({ prompt: 'Freeze sk-live-123456?', data: { amount: 9000 } });
    const line = log.line(
      invocation(
        { amount: 9000 },
        { ok: false, error: new ToolError('other', 'asks a person'), awaitingInput: asked },
      ),
      undefined,
    );
    void log.close();
    const record = JSON.parse(line);
    expect(record).toMatchObject({
      outcome: 'awaiting_input',
      question: { prompt: 'Freeze [redacted]?', data: { amount: 9000 } },
    });
    expect(record.error).toBeUndefined();
  });

  it('redacts secrets in arguments, results and error messages, escaped forms included', () => {
    const log = AuditLog.open(join(dir, 'redact.jsonl'), ['sk-live-123456']);
    const line = log.line(
      invocation(
        { key: 'sk-live-123456', nested: [{ json: '{"k":"sk-live-123456"}' }] },
        { ok: false, error: new ToolError('execution_failed', 'refused sk-live-123456') },
      ),
      undefined,
    );
    void log.close();
    expect(line).not.toContain('sk-live-123456');
    expect(JSON.parse(line)).toMatchObject({
      arguments: { key: '[redacted]', nested: [{ json: '{"k":"[redacted]"}' }] },
      error: { code: 'execution_failed', message: 'refused [redacted]' },
    });
  });
});

describe('auditSecrets', () => {
  it('takes the API key, the env values an MCP config references, its credentials, and --audit-redact names', () => {
    const secrets = auditSecrets({
      apiKey: 'sk-key',
      redactEnv: ['MINE', 'UNSET'],
      environment: { MINE: 'mine-value', GITHUB_TOKEN: 'ghp-token', PLAIN: 'plain' },
      mcpServers: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a variable reference of mcp.json
        github: { command: 'x', env: { TOKEN: '${GITHUB_TOKEN}', MODE: 'fast' } },
        remote: {
          url: 'https://user:pass@host/mcp?key=query-secret',
          headers: { Authorization: 'Bearer header-secret' },
        },
      },
    });
    expect(secrets).toEqual(
      expect.arrayContaining([
        'sk-key',
        'mine-value',
        'ghp-token',
        'header-secret',
        'pass',
        'query-secret',
      ]),
    );
    expect(secrets).not.toContain('fast');
    expect(secrets).not.toContain('plain');
  });
});
