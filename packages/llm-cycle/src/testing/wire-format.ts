/**
 * Builders of Chat Completions wire data, for the replies of `startChatCompletionsServer`. The
 * shapes follow what api.openai.com sends (ids `chatcmpl-…`, `object`, `created`, `model`,
 * `system_fingerprint`, `service_tier`, `usage: null` on every chunk when usage is on, the
 * usage chunk with empty `choices`, `data: [DONE]`).
 */

/** A JSON object of the wire format. */
export type WireObject = Record<string, unknown>;

const model = 'gpt-4o-mini-2024-07-18';
const fingerprint = 'fp_34a54ae93c';
const created = 1_754_813_855;
let sequence = 0;

/** A fresh completion id in OpenAI's shape (`chatcmpl-…`). */
export function completionId(): string {
  sequence++;
  return `chatcmpl-C3N2Vhx8lxKfZrJ8yS2j${String(sequence).padStart(6, '0')}`;
}

/** Usage in OpenAI's shape, with the token details. */
export function wireUsage(promptTokens: number, completionTokens: number): WireObject {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** One SSE event carrying `payload` as JSON: `data: {...}\n\n`. */
export function sseEvent(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

/** The event that ends a Chat Completions stream. */
export const sseDone = 'data: [DONE]\n\n';

/** A `chat.completion.chunk` with one choice carrying `delta`. */
export function completionChunk(
  id: string,
  delta: WireObject,
  finishReason: string | null = null,
): WireObject {
  return {
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    service_tier: 'default',
    system_fingerprint: fingerprint,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  };
}

/** The chunk OpenAI sends last when `stream_options.include_usage` is on: empty `choices`. */
export function usageChunk(id: string, promptTokens: number, completionTokens: number): WireObject {
  return {
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    service_tier: 'default',
    system_fingerprint: fingerprint,
    choices: [],
    usage: wireUsage(promptTokens, completionTokens),
  };
}

/** A streamed text answer: role chunk, one chunk per piece, finish chunk, usage chunk, `[DONE]`. */
export function textStream(
  pieces: readonly string[],
  options: { usage?: readonly [number, number]; finishReason?: string } = {},
): string[] {
  const id = completionId();
  const writes = [sseEvent(completionChunk(id, { role: 'assistant', content: '', refusal: null }))];
  for (const piece of pieces) writes.push(sseEvent(completionChunk(id, { content: piece })));
  writes.push(sseEvent(completionChunk(id, {}, options.finishReason ?? 'stop')));
  const [prompt, completion] = options.usage ?? [19, pieces.length];
  writes.push(sseEvent(usageChunk(id, prompt, completion)), sseDone);
  return writes;
}

/** A tool call to stream: its arguments are sent in the given pieces. */
export interface StreamedCall {
  readonly id: string;
  readonly name: string;
  readonly pieces: readonly string[];
}

/**
 * A streamed tool-call answer in OpenAI's shape: the first delta of each call carries `index`,
 * `id`, `type`, `function.name` and empty arguments; later ones only `index` and a piece of the
 * arguments. `interleave` alternates the calls' pieces, as some servers do.
 */
export function toolCallStream(
  calls: readonly StreamedCall[],
  options: {
    interleave?: boolean;
    finishReason?: string;
    usage?: readonly [number, number];
    text?: string;
  } = {},
): string[] {
  const id = completionId();
  const writes: string[] = [];
  if (options.text !== undefined) {
    writes.push(
      sseEvent(completionChunk(id, { role: 'assistant', content: '', refusal: null })),
      sseEvent(completionChunk(id, { content: options.text })),
    );
  }
  const bare = options.text === undefined;
  const opening = (index: number, call: StreamedCall): string =>
    sseEvent(
      completionChunk(id, {
        ...(index === 0 && bare ? { role: 'assistant', content: null } : {}),
        tool_calls: [
          { index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } },
        ],
        ...(index === 0 && bare ? { refusal: null } : {}),
      }),
    );
  const piece = (index: number, text: string): string =>
    sseEvent(completionChunk(id, { tool_calls: [{ index, function: { arguments: text } }] }));
  if (options.interleave === true) {
    calls.forEach((call, index) => {
      writes.push(opening(index, call));
    });
    const longest = Math.max(...calls.map((call) => call.pieces.length));
    for (let step = 0; step < longest; step++) {
      calls.forEach((call, index) => {
        const text = call.pieces[step];
        if (text !== undefined) writes.push(piece(index, text));
      });
    }
  } else {
    calls.forEach((call, index) => {
      writes.push(opening(index, call));
      for (const text of call.pieces) writes.push(piece(index, text));
    });
  }
  writes.push(sseEvent(completionChunk(id, {}, options.finishReason ?? 'tool_calls')));
  const [prompt, completion] = options.usage ?? [82, 17];
  writes.push(sseEvent(usageChunk(id, prompt, completion)), sseDone);
  return writes;
}

/** A non-streamed `chat.completion` body with text. */
export function textCompletion(
  text: string,
  usage: readonly [number, number] = [19, 10],
): WireObject {
  return completionBody(
    { role: 'assistant', content: text, refusal: null, annotations: [] },
    'stop',
    usage,
  );
}

/** A non-streamed `chat.completion` body with tool calls. */
export function toolCallCompletion(
  calls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[],
  options: { finishReason?: string; usage?: readonly [number, number] } = {},
): WireObject {
  return completionBody(
    {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
      refusal: null,
      annotations: [],
    },
    options.finishReason ?? 'tool_calls',
    options.usage ?? [82, 17],
  );
}

function completionBody(
  message: WireObject,
  finishReason: string,
  usage: readonly [number, number],
): WireObject {
  return {
    id: completionId(),
    object: 'chat.completion',
    created,
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
    usage: wireUsage(usage[0], usage[1]),
    service_tier: 'default',
    system_fingerprint: fingerprint,
  };
}

/** OpenAI's error body: `{ error: { message, type, param, code } }`. */
export function errorBody(
  message: string,
  type: string,
  code: string | null,
  param: string | null = null,
): WireObject {
  return { error: { message, type, param, code } };
}
