import { LlmCycle } from '@agcore/llm-cycle';
import { ScriptedProvider } from '@agcore/llm-cycle/testing';
import { createRedactor } from '@agcore/tools-core';
import { describe, expect, it } from 'vitest';
import { auditSecrets } from '../core/audit-log.js';
import { toScriptSteps } from '../core/scripted-model.js';
import { type ModelExchangeRecord, recordModelExchanges } from './model-exchanges.js';

const secret = 'sk-live-0123456789abcdef';
/** The secrets a web run redacts: the API key, and credential-like `env` of `--mcp-config`. */
const redact = createRedactor(
  auditSecrets({
    apiKey: secret,
    mcpServers: { demo: { command: 'node', env: { DEMO_TOKEN: 'tok-9876543210' } } },
    redactEnv: [],
    environment: {},
  }),
);

describe('recordModelExchanges: the request and response bodies the page shows', () => {
  it('records each turn of a real cycle, request then response, with the secrets redacted', async () => {
    const scripted = new ScriptedProvider();
    scripted.push(...toScriptSteps([{ text: `Your key is ${secret}, and tok-9876543210.` }]));
    const records: ModelExchangeRecord[] = [];
    const provider = recordModelExchanges(scripted, redact, (record) => records.push(record), 3);
    const cycle = new LlmCycle({ provider, model: 'scripted' });
    let streamed = '';
    for await (const event of cycle.submitStream(`Remember ${secret}.`)) {
      if (event.type === 'assistant_text_delta') streamed += event.text;
    }
    // The model's own answer reaches the run unchanged: only the shown bodies are redacted.
    expect(streamed).toContain(secret);

    expect(records.map((record) => [record.kind, record.turn])).toEqual([
      ['request', 3],
      ['response', 3],
    ]);
    const [request, answer] = records;
    expect(JSON.parse(request?.body ?? '').messages.at(-1)).toEqual({
      role: 'user',
      content: 'Remember [redacted].',
    });
    expect(JSON.parse(answer?.body ?? '').message.content).toBe(
      'Your key is [redacted], and [redacted].',
    );
    for (const record of records) {
      expect(record.body).not.toContain(secret);
      expect(record.body).not.toContain('tok-9876543210');
    }
  });

  it('a failing model call is recorded as the turn’s failure, and still fails the run', async () => {
    const scripted = new ScriptedProvider();
    scripted.push({ type: 'error', error: new Error(`upstream refused key ${secret}`) });
    const records: ModelExchangeRecord[] = [];
    const provider = recordModelExchanges(scripted, redact, (record) => records.push(record));
    const cycle = new LlmCycle({ provider, model: 'scripted', retry: { maxRetries: 0 } });
    await expect(cycle.submit('hello')).rejects.toThrow();
    expect(records.map((record) => record.kind)).toEqual(['request', 'failure']);
    expect(records[1]?.body).toContain('upstream refused key [redacted]');
  });
});
