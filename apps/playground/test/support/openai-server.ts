import {
  type ChatCompletionsServer,
  completionChunk,
  type ReceivedRequest,
  type ServerReply,
  sseDone,
  sseEvent,
  startChatCompletionsServer,
} from '@agcore/llm-cycle/testing';

/**
 * A local server on 127.0.0.1 that answers like the OpenAI Chat Completions API, built on the
 * one test server of `@agcore/llm-cycle/testing`: Bearer-key check (401 with OpenAI's error
 * body), unknown model (404 model_not_found), unknown URL (404), and streamed answers in the
 * real SSE chunk shape (role chunk, tool-call deltas split mid-token, a finish chunk, a usage
 * chunk with empty choices, `data: [DONE]`). `hang()` makes the next request wait forever.
 *
 * The scripted behaviour: a request whose last message is a tool result gets a text answer
 * quoting it; any other request gets some reasoning (`reasoning_content`, as DeepSeek and Qwen
 * send it) and one get_weather call for Beijing.
 */
export interface FakeOpenAI {
  readonly baseURL: string;
  /** The requests received, in order: their `Authorization` header and JSON body. */
  readonly requests: ReadonlyArray<{ authorization?: string; body: Record<string, unknown> }>;
  /** The next `times` requests get no answer at all, not even headers (default 1). */
  hang(times?: number): void;
  close(): Promise<void>;
}

export const goodKey = 'sk-test-good-key-123';
export const knownModel = 'test-model';

function error(status: number, message: string, code: string): ServerReply {
  return {
    kind: 'json',
    status,
    body: { error: { message, type: 'invalid_request_error', param: null, code } },
  };
}

function usage(id: string, prompt: number, completion: number): string {
  return sseEvent({
    id,
    object: 'chat.completion.chunk',
    created: 1_767_225_600,
    model: knownModel,
    choices: [],
    usage: {
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    },
  });
}

function answer(request: ReceivedRequest): ServerReply {
  if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
    return error(404, `Unknown request URL: ${request.method} ${request.url}`, 'unknown_url');
  }
  const body = request.body as {
    model?: unknown;
    messages?: Array<{ role: string; content: string }>;
  };
  if (request.headers.authorization !== `Bearer ${goodKey}`) {
    return error(
      401,
      'Incorrect API key provided: sk-wr***key. You can find your API key at https://platform.openai.com/account/api-keys.',
      'invalid_api_key',
    );
  }
  if (body.model !== knownModel) {
    return error(
      404,
      `The model \`${String(body.model)}\` does not exist or you do not have access to it.`,
      'model_not_found',
    );
  }
  const last = body.messages?.at(-1);
  const writes = [': keep-alive\n\n'];
  if (last?.role === 'tool') {
    const id = 'chatcmpl-test-2';
    writes.push(sseEvent(completionChunk(id, { role: 'assistant', content: '', refusal: null })));
    for (const piece of ['The tool says: ', last.content.slice(0, 60), '. Have a nice day.'])
      writes.push(sseEvent(completionChunk(id, { content: piece })));
    writes.push(sseEvent(completionChunk(id, {}, 'stop')), usage(id, 140, 25));
  } else {
    const id = 'chatcmpl-test-1';
    writes.push(
      sseEvent(
        completionChunk(id, {
          role: 'assistant',
          content: null,
          reasoning_content: 'The user wants ',
        }),
      ),
      sseEvent(completionChunk(id, { reasoning_content: 'the weather.' })),
      sseEvent(
        completionChunk(id, {
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
      ),
    );
    for (const piece of ['{"ci', 'ty": "Be', 'ijing"}'])
      writes.push(
        sseEvent(
          completionChunk(id, { tool_calls: [{ index: 0, function: { arguments: piece } }] }),
        ),
      );
    writes.push(sseEvent(completionChunk(id, {}, 'tool_calls')), usage(id, 120, 18));
  }
  writes.push(sseDone);
  return { kind: 'sse', writes: [writes.join('')] };
}

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const server: ChatCompletionsServer = await startChatCompletionsServer();
  server.fallback(answer);
  return {
    baseURL: server.baseURL,
    get requests() {
      return server.requests.map((request) => ({
        ...(request.headers.authorization === undefined
          ? {}
          : { authorization: request.headers.authorization }),
        body: request.body as Record<string, unknown>,
      }));
    },
    hang: (times = 1) => {
      for (let count = 0; count < times; count++) server.reply({ kind: 'hang' });
    },
    close: () => server.close(),
  };
}
