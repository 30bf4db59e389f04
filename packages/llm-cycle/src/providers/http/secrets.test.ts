/**
 * No secret leaves the provider: the API key, credential header values and the base URL's
 * credentials are looked for, in every escaping, in everything a user can see — error messages,
 * `responseBody`, causes and their stacks, stream events, the history and the response.
 */
import { createRedactor, defineTool } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../llm-error.js';
import { LlmCycle } from '../../loop/llm-cycle.js';
import type { StreamEvent } from '../../stream-events.js';
import { useChatServer } from '../../test-support/chat-server.js';
import { collectChunks } from '../../test-support/results.js';
import {
  completionChunk,
  type ReceivedRequest,
  type ServerReply,
  sseDone,
  sseEvent,
  startChatCompletionsServer,
} from '../../testing/index.js';
import { createOpenAICompatibleProvider } from '../openai-compatible/openai-compatible-provider.js';

const apiKey = 'sk-proj-SECRET/4f9a+8b7c"6d5e';
const azureKey = 'azure-key-0123456789abcdef';
const user = 'proxy-user';
const password = 'pa ss/w0rd@secret';
/** What must never be seen, and how a server or a library could spell each. */
const secrets = [apiKey, azureKey, password, `${user}:${password}`];
const detector = createRedactor(secrets);

/** Every way the tests spell a secret when a hostile server echoes it back. */
function spellings(secret: string): string[] {
  const unicode = [...secret]
    .map((character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`)
    .join('');
  return [
    secret,
    JSON.stringify(secret).slice(1, -1),
    JSON.stringify(secret).slice(1, -1).replaceAll('/', '\\/'),
    unicode,
    encodeURIComponent(secret),
  ];
}

const fixture = useChatServer({ resetBeforeEach: true });

/** The base URL with credentials in its user info. */
function baseURL(): string {
  const url = new URL(fixture.server.baseURL);
  url.username = user;
  url.password = password;
  return url.toString();
}

function newProvider() {
  return createOpenAICompatibleProvider({
    baseURL: baseURL(),
    apiKey,
    headers: { 'api-key': azureKey, 'x-app': 'agcore-test' },
  });
}

/** Everything reachable from `value` as text: own string fields, stacks, causes, JSON. */
function everything(value: unknown, seen = new Set<unknown>()): string {
  if (value === null || value === undefined || seen.has(value)) return '';
  if (typeof value === 'string') return value;
  if (typeof value !== 'object') return String(value);
  seen.add(value);
  const parts: string[] = [];
  if (value instanceof Error) parts.push(value.message, value.stack ?? '', String(value));
  for (const key of Reflect.ownKeys(value)) {
    parts.push(everything((value as Record<string | symbol, unknown>)[key], seen));
  }
  try {
    parts.push(JSON.stringify(value) ?? '');
  } catch {
    // Cycles and BigInts: the fields above were scanned one by one.
  }
  return parts.join('\n');
}

function expectClean(label: string, value: unknown): void {
  const text = everything(value);
  for (const secret of secrets) {
    for (const form of spellings(secret)) {
      expect(text.includes(form), `${label} contains ${JSON.stringify(form)}`).toBe(false);
    }
  }
  expect(detector(text), `${label} contains an escaped secret`).toBe(text);
}

/** A reply that echoes every secret the request carried, each in every spelling. */
function echo(build: (leak: string) => ServerReply): (request: ReceivedRequest) => ServerReply {
  return (request) => {
    const headers = JSON.stringify(request.headers);
    const leak = [
      ...secrets.flatMap(spellings),
      headers,
      String(request.headers.authorization ?? ''),
    ].join(' | ');
    return build(leak);
  };
}

const request = { model: 'm', messages: [{ role: 'user' as const, content: 'Hi' }] };

async function caught(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('secrets never leave the provider', () => {
  it('sends the user info as Basic credentials, not in the URL', async () => {
    fixture.server.reply({
      kind: 'json',
      body: { id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' } }] },
    });
    await createOpenAICompatibleProvider({ baseURL: baseURL() }).chat(request);
    const received = fixture.server.requests[0];
    expect(received?.url).toBe('/v1/chat/completions');
    expect(received?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`,
    );
  });

  const failures: [string, () => ServerReply | ((request: ReceivedRequest) => ServerReply)][] = [
    [
      'an HTTP 400 echoing them in JSON',
      () =>
        echo((leak) => ({
          kind: 'json',
          status: 400,
          body: { error: { message: `bad key ${leak}`, type: 'invalid_request_error' } },
        })),
    ],
    [
      'an HTTP 401 echoing them as text',
      () => echo((leak) => ({ kind: 'text', status: 401, body: `nope ${leak}` })),
    ],
    [
      'an HTML page with status 200',
      () =>
        echo((leak) => ({
          kind: 'text',
          status: 200,
          headers: { 'content-type': 'text/html' },
          body: `<html>${leak}</html>`,
        })),
    ],
    [
      'a body that is not JSON',
      () =>
        echo((leak) => ({
          kind: 'text',
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: `{"broken": "${leak}`,
        })),
    ],
    [
      'an error event mid-stream',
      () =>
        echo((leak) => ({
          kind: 'sse',
          writes: [sseEvent({ error: { message: `overloaded ${leak}`, code: 'server_error' } })],
        })),
    ],
    [
      'a data line that is not JSON',
      () => echo((leak) => ({ kind: 'sse', writes: [`data: {not json ${leak}\n\n`] })),
    ],
  ];

  for (const [label, reply] of failures) {
    it(`${label}: message, responseBody and causes are clean (both paths)`, async () => {
      const provider = newProvider();
      fixture.server.reply(reply());
      const whole = await caught(() => provider.chat(request));
      fixture.server.reply(reply());
      const streamed = await caught(() => collectChunks(provider.chatStream(request)));
      for (const error of [whole, streamed]) {
        expect(LlmError.isInstance(error)).toBe(true);
        expectClean(label, error);
      }
    });
  }

  it('a refused connection: the URL with credentials is not in the message or the cause', async () => {
    const closed = await startChatCompletionsServer();
    const url = new URL(closed.baseURL);
    await closed.close();
    url.username = user;
    url.password = password;
    const provider = createOpenAICompatibleProvider({ baseURL: url.toString(), apiKey });
    const error = await caught(() => provider.chat(request));
    expect(LlmError.isInstance(error) && error.code).toBe('network');
    expectClean('network error', error);
  });

  it('a tool loop whose server echoes the secrets into text, reasoning and tool arguments', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: 'lookup',
      description: 'Looks up',
      parameters: { type: 'object', properties: { q: { type: 'string' } } },
      execute: async (args) => {
        seen.push(args);
        return 'found';
      },
    });
    const registry = new ToolRegistry().register(tool);
    const id = 'chatcmpl-leak';
    const first = echo((leak) => ({
      kind: 'sse',
      writes: [
        sseEvent(completionChunk(id, { role: 'assistant', reasoning_content: `think ${leak}` })),
        sseEvent(
          completionChunk(id, {
            tool_calls: [
              {
                index: 0,
                id: 'call_1',
                type: 'function',
                function: { name: 'lookup', arguments: JSON.stringify({ q: leak }) },
              },
            ],
          }),
        ),
        sseEvent(completionChunk(id, {}, 'tool_calls')),
        sseDone,
      ],
    }));
    const second = echo((leak) => ({
      kind: 'sse',
      writes: [
        sseEvent(completionChunk(id, { content: `Your key is ${leak}.` })),
        sseEvent(completionChunk(id, {}, 'stop')),
        sseDone,
      ],
    }));
    for (const streaming of [false, true]) {
      const cycle = new LlmCycle({ provider: newProvider(), model: 'm' });
      fixture.server.reply(first, second);
      const events: StreamEvent[] = [];
      let response: unknown;
      if (streaming) {
        const stream = cycle.submitStreamWithTools('Leak it', registry);
        for (let step = await stream.next(); ; step = await stream.next()) {
          if (step.done === true) {
            response = step.value;
            break;
          }
          events.push(step.value);
        }
      } else {
        response = await cycle.submitWithTools('Leak it', registry);
      }
      expectClean('events', events);
      expectClean('history', cycle.messages());
      expectClean('response', response);
      expectClean('tool arguments', seen);
    }
  });
});
