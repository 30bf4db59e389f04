import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local server on 127.0.0.1 that answers like the OpenAI Chat Completions API: Bearer-key
 * check (401 with OpenAI's error body), unknown model (404 model_not_found), and streamed
 * answers in the real SSE chunk shape (role chunk, tool-call deltas split mid-token, a
 * finish chunk, a usage chunk with empty choices, `data: [DONE]`).
 *
 * The scripted behaviour: a request whose last message is a tool result gets a text answer
 * quoting it; any other request gets one get_weather call for Beijing.
 */
export interface FakeOpenAI {
  readonly baseURL: string;
  readonly requests: Array<{ authorization?: string; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

export const goodKey = 'sk-test-good-key-123';
export const knownModel = 'test-model';

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): string {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-test-1',
    object: 'chat.completion.chunk',
    created: 1_767_225_600,
    model: knownModel,
    system_fingerprint: 'fp_test',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  })}\n\n`;
}

async function readBody(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const part of request) text += String(part);
  return text;
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const requests: FakeOpenAI['requests'] = [];
  const server: Server = createServer(async (request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      sendJson(response, 404, {
        error: {
          message: `Unknown request URL: ${request.method} ${request.url}`,
          type: 'invalid_request_error',
          param: null,
          code: 'unknown_url',
        },
      });
      return;
    }
    const body = JSON.parse(await readBody(request)) as Record<string, unknown>;
    requests.push({
      ...(request.headers.authorization === undefined
        ? {}
        : { authorization: request.headers.authorization }),
      body,
    });
    if (request.headers.authorization !== `Bearer ${goodKey}`) {
      sendJson(response, 401, {
        error: {
          message:
            'Incorrect API key provided: sk-wr***key. You can find your API key at https://platform.openai.com/account/api-keys.',
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_api_key',
        },
      });
      return;
    }
    if (body.model !== knownModel) {
      sendJson(response, 404, {
        error: {
          message: `The model \`${String(body.model)}\` does not exist or you do not have access to it.`,
          type: 'invalid_request_error',
          param: null,
          code: 'model_not_found',
        },
      });
      return;
    }
    const messages = body.messages as Array<{ role: string; content: string }>;
    const last = messages[messages.length - 1];
    response.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    response.write(': keep-alive\n\n');
    if (last?.role === 'tool') {
      response.write(chunk({ role: 'assistant', content: '', refusal: null }));
      for (const piece of ['The tool says: ', last.content.slice(0, 60), '. Have a nice day.']) {
        response.write(chunk({ content: piece }));
      }
      response.write(chunk({}, 'stop'));
      response.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-test-2', object: 'chat.completion.chunk', created: 1_767_225_601, model: knownModel, choices: [], usage: { prompt_tokens: 140, completion_tokens: 25, total_tokens: 165 } })}\n\n`,
      );
    } else {
      response.write(
        chunk({
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              index: 0,
              id: 'call_real_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '' },
            },
          ],
          refusal: null,
        }),
      );
      for (const piece of ['{"ci', 'ty": "Be', 'ijing"}']) {
        response.write(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
      }
      response.write(chunk({}, 'tool_calls'));
      response.write(
        `data: ${JSON.stringify({ id: 'chatcmpl-test-1', object: 'chat.completion.chunk', created: 1_767_225_600, model: knownModel, choices: [], usage: { prompt_tokens: 120, completion_tokens: 18, total_tokens: 138 } })}\n\n`,
      );
    }
    response.end('data: [DONE]\n\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
