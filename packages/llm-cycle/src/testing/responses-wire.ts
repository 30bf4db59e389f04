/**
 * Builders of OpenAI Responses wire data, for the replies of `startResponsesServer`. Sources,
 * named per rule below: the API reference (platform.openai.com/docs/api-reference/responses,
 * ".../responses-streaming") and the `openai` SDK's types (src/resources/responses/responses.ts:
 * `Response`, `ResponseStreamEvent`).
 */

/** A JSON object of the Responses wire format. */
export type ResponsesObject = Record<string, unknown>;

const model = 'gpt-5-mini-2025-08-07';
const createdAt = 1_754_813_855;
let sequence = 0;

/** A fresh id with OpenAI's prefix: `resp_`, `msg_`, `fc_`, `rs_` (reference: the object ids). */
export function responsesId(prefix: 'resp' | 'msg' | 'fc' | 'rs' | 'call'): string {
  sequence++;
  return `${prefix}_68a1f2c3b4d5e6f7${String(sequence).padStart(8, '0')}`;
}

/** Usage as the reference's `ResponseUsage`: token details always present. */
export function responsesUsage(
  inputTokens: number,
  outputTokens: number,
  details: { readonly cachedTokens?: number; readonly reasoningTokens?: number } = {},
): ResponsesObject {
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: details.cachedTokens ?? 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: details.reasoningTokens ?? 0 },
    total_tokens: inputTokens + outputTokens,
  };
}

/** An output `message` item (`ResponseOutputMessage`): one `output_text` part. */
export function messageItem(text: string, id = responsesId('msg')): ResponsesObject {
  return {
    id,
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [], logprobs: [] }],
  };
}

/** A `function_call` item (`ResponseFunctionToolCall`): `call_id`, `name`, `arguments` (a JSON string). */
export function functionCallItem(
  name: string,
  args: unknown,
  callId = responsesId('call'),
  id = responsesId('fc'),
): ResponsesObject {
  const text = typeof args === 'string' ? args : JSON.stringify(args);
  return { id, type: 'function_call', status: 'completed', arguments: text, call_id: callId, name };
}

/**
 * A `reasoning` item (`ResponseReasoningItem`) with a summary and, as with `store: false` and
 * `include: ["reasoning.encrypted_content"]`, its `encrypted_content`.
 */
export function reasoningItem(
  summary: string,
  encryptedContent = `gAAAAB${btoa(encodeURIComponent(summary))}`,
  id = responsesId('rs'),
): ResponsesObject {
  return {
    id,
    type: 'reasoning',
    summary: summary === '' ? [] : [{ type: 'summary_text', text: summary }],
    encrypted_content: encryptedContent,
  };
}

/** What a response object is made of. */
export interface ResponseParts {
  /** The output items, in order (build them with `messageItem`, `functionCallItem`, `reasoningItem`). */
  readonly output: readonly ResponsesObject[];
  /** The response id (default: a fresh `resp_…`). */
  readonly id?: string;
  /** `completed` (default), `incomplete` or `failed`. */
  readonly status?: 'completed' | 'incomplete' | 'failed';
  /** `incomplete_details.reason`, e.g. `max_output_tokens`, `content_filter`. */
  readonly incompleteReason?: string;
  /** `error` of a failed response: `{ code, message }`. */
  readonly error?: { readonly code: string; readonly message: string };
  /** `usage` (default `responsesUsage(12, 6)`; `null`: none). */
  readonly usage?: ResponsesObject | null;
  /** `store` as the response echoes it (default `false`). */
  readonly store?: boolean;
}

/** A `response` object (reference: "The response object"). */
export function responseObject(parts: ResponseParts): ResponsesObject {
  const status = parts.status ?? 'completed';
  return {
    id: parts.id ?? responsesId('resp'),
    object: 'response',
    created_at: createdAt,
    status,
    background: false,
    error: parts.error ?? null,
    incomplete_details:
      status === 'incomplete' ? { reason: parts.incompleteReason ?? 'max_output_tokens' } : null,
    instructions: null,
    max_output_tokens: null,
    model,
    output: parts.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: 'medium', summary: 'auto' },
    store: parts.store ?? false,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [],
    top_p: 1,
    truncation: 'disabled',
    usage: parts.usage === undefined ? responsesUsage(12, 6) : parts.usage,
    user: null,
    metadata: {},
  };
}

/** One SSE event as the API sends it: `event: <type>` and the JSON with the same `type`. */
export function responsesEvent(payload: ResponsesObject): string {
  return `event: ${String(payload.type)}\ndata: ${JSON.stringify(payload)}\n\n`;
}

/**
 * The events of a streamed response, in the order of the streaming reference: `response.created`,
 * `response.in_progress`, per item `output_item.added`, its deltas (`content_part.added`,
 * `output_text.delta`…, `output_text.done`, `content_part.done`; `function_call_arguments.delta`…
 * and `.done`; `reasoning_summary_part.added`, `reasoning_summary_text.delta`… and `.done`),
 * `output_item.done`, then `response.completed`, `response.incomplete` or `response.failed`
 * carrying the whole response. `pieces` is how many deltas each text is cut into (default 3).
 */
export function responseEvents(response: ResponsesObject, pieces = 3): string[] {
  let number = 0;
  const event = (payload: ResponsesObject): string =>
    responsesEvent({ ...payload, sequence_number: number++ });
  const pending = { ...response, status: 'in_progress', output: [], usage: null };
  const events = [
    event({ type: 'response.created', response: pending }),
    event({ type: 'response.in_progress', response: pending }),
  ];
  const output = response.output as ResponsesObject[];
  output.forEach((item, index) => {
    events.push(
      event({ type: 'response.output_item.added', output_index: index, item: opened(item) }),
    );
    for (const payload of itemDeltas(item, index, pieces)) events.push(event(payload));
    events.push(event({ type: 'response.output_item.done', output_index: index, item }));
  });
  const terminal =
    response.status === 'failed'
      ? 'response.failed'
      : response.status === 'incomplete'
        ? 'response.incomplete'
        : 'response.completed';
  events.push(event({ type: terminal, response }));
  return events;
}

/** An item as `output_item.added` shows it: no text, no arguments yet. */
function opened(item: ResponsesObject): ResponsesObject {
  if (item.type === 'message') return { ...item, status: 'in_progress', content: [] };
  if (item.type === 'function_call') return { ...item, status: 'in_progress', arguments: '' };
  if (item.type === 'reasoning') return { ...item, summary: [] };
  return item;
}

function itemDeltas(item: ResponsesObject, index: number, pieces: number): ResponsesObject[] {
  const at = { item_id: item.id, output_index: index };
  if (item.type === 'function_call') {
    const args = String(item.arguments);
    return [
      ...cut(args, pieces).map((delta) => ({
        type: 'response.function_call_arguments.delta',
        ...at,
        delta,
      })),
      { type: 'response.function_call_arguments.done', ...at, arguments: args },
    ];
  }
  if (item.type === 'message') {
    const part = (item.content as ResponsesObject[])[0] ?? { type: 'output_text', text: '' };
    const text = String(part.text ?? '');
    const where = { ...at, content_index: 0 };
    return [
      { type: 'response.content_part.added', ...where, part: { ...part, text: '' } },
      ...cut(text, pieces).map((delta) => ({
        type: 'response.output_text.delta',
        ...where,
        delta,
        logprobs: [],
      })),
      { type: 'response.output_text.done', ...where, text, logprobs: [] },
      { type: 'response.content_part.done', ...where, part },
    ];
  }
  if (item.type === 'reasoning') {
    const summary = (item.summary as ResponsesObject[])[0];
    if (summary === undefined) return [];
    const text = String(summary.text);
    const where = { ...at, summary_index: 0 };
    return [
      {
        type: 'response.reasoning_summary_part.added',
        ...where,
        part: { type: 'summary_text', text: '' },
      },
      ...cut(text, pieces).map((delta) => ({
        type: 'response.reasoning_summary_text.delta',
        ...where,
        delta,
      })),
      { type: 'response.reasoning_summary_text.done', ...where, text },
      { type: 'response.reasoning_summary_part.done', ...where, part: summary },
    ];
  }
  return [];
}

/** `text` in `pieces` parts of about equal length (code points kept whole). */
function cut(text: string, pieces: number): string[] {
  const points = [...text];
  if (points.length === 0) return [];
  const size = Math.max(1, Math.ceil(points.length / pieces));
  const parts: string[] = [];
  for (let start = 0; start < points.length; start += size)
    parts.push(points.slice(start, start + size).join(''));
  return parts;
}

/** The `error` event of the streaming reference: `code`, `message`, `param`. */
export function responsesErrorEvent(code: string, message: string): string {
  return responsesEvent({ type: 'error', code, message, param: null, sequence_number: 0 });
}
