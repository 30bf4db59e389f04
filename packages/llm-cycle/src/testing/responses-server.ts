/**
 * A real HTTP server on 127.0.0.1 for the OpenAI Responses API: the Chat Completions server's
 * script and hostile replies (stalls, cuts, 5xx/429 with `retry-after`, oversized bodies, secrets
 * echoed), plus the request rules of `POST /v1/responses` that a provider can break, checked on
 * every request before the scripted reply is taken (a broken request is answered HTTP 400
 * `invalid_request_error`, as the API does, and takes no reply). Node only, like that server.
 */
import {
  type ChatCompletionsServer,
  type ChatCompletionsServerOptions,
  type ReceivedRequest,
  type ServerReply,
  startChatCompletionsServer,
} from './chat-completions-server.js';

/** A running Responses server: give `baseURL` to `createOpenAIResponsesProvider`. */
export type ResponsesServer = ChatCompletionsServer;

/**
 * Starts a Responses server that plays a script of replies (build them with `responseObject`,
 * `responseEvents`, `messageItem`, `functionCallItem`, `reasoningItem`). Resolves once it listens.
 * @throws {Error} when the port is taken
 */
export async function startResponsesServer(
  options: ChatCompletionsServerOptions = {},
): Promise<ResponsesServer> {
  const server = await startChatCompletionsServer(options);
  const reply = server.reply.bind(server);
  server.reply = (...replies: ServerReply[]) =>
    reply(
      ...replies.map(
        (next): ServerReply =>
          (request) =>
            refusal(request) ?? next,
      ),
    );
  return server;
}

/** The API's 400 for a request that breaks one of the rules below, or `undefined`. */
export function refusal(request: ReceivedRequest): ServerReply | undefined {
  const problem = requestProblem(request.body);
  if (problem === undefined) return undefined;
  return {
    kind: 'json',
    status: 400,
    body: {
      error: {
        message: problem.message,
        type: 'invalid_request_error',
        param: problem.param,
        code: null,
      },
    },
  };
}

interface Problem {
  readonly message: string;
  readonly param: string;
}

type Item = Record<string, unknown>;

/** The first rule `body` breaks. */
function requestProblem(body: unknown): Problem | undefined {
  if (typeof body !== 'object' || body === null)
    return { message: 'The body must be a JSON object.', param: '' };
  const request = body as Item;
  if (typeof request.model !== 'string')
    return { message: "Missing required parameter: 'model'.", param: 'model' };
  // Reference, "input": a string or a list of input items.
  if (typeof request.input !== 'string' && !Array.isArray(request.input))
    return { message: "Invalid type for 'input'.", param: 'input' };
  // Chat Completions fields are refused by name (reference: no `messages`, `max_tokens`).
  for (const field of ['messages', 'max_tokens', 'stream_options'])
    if (field in request) return { message: `Unknown parameter: '${field}'.`, param: field };
  const items = (Array.isArray(request.input) ? request.input : []) as Item[];
  return (
    itemsProblem(items, request.store !== true, request.previous_response_id !== undefined) ??
    toolsProblem(request.tools)
  );
}

function itemsProblem(
  items: readonly Item[],
  unstored: boolean,
  continued: boolean,
): Problem | undefined {
  const calls = new Set<unknown>();
  for (const [index, item] of items.entries()) {
    const param = `input[${index}]`;
    if (item.type === 'function_call') {
      if (
        typeof item.call_id !== 'string' ||
        typeof item.name !== 'string' ||
        typeof item.arguments !== 'string'
      )
        return { message: `Missing call_id, name or arguments (a string) in ${param}.`, param };
      calls.add(item.call_id);
    }
    // The API's wording: "No tool call found for function call output with call_id ...".
    if (item.type === 'function_call_output') {
      if (!continued && !calls.has(item.call_id))
        return {
          message: `No tool call found for function call output with call_id ${String(item.call_id)}.`,
          param,
        };
      if (typeof item.output !== 'string')
        return { message: `Invalid type for '${param}.output'.`, param };
    }
    // guides/reasoning, "Encrypted reasoning items": with store false, only encrypted content travels.
    if (item.type === 'reasoning' && unstored && typeof item.encrypted_content !== 'string')
      return {
        message: `Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
        param,
      };
    if (item.role === 'tool')
      return {
        message: `Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
        param: `${param}.role`,
      };
  }
  return undefined;
}

/** Reference, "tools": a function tool is `{ type, name, parameters, ... }`, not Chat Completions' `{ function }`. */
function toolsProblem(tools: unknown): Problem | undefined {
  if (tools === undefined) return undefined;
  if (!Array.isArray(tools)) return { message: "Invalid type for 'tools'.", param: 'tools' };
  for (const [index, tool] of (tools as Item[]).entries()) {
    if (tool.type === 'function' && typeof tool.name !== 'string')
      return {
        message: `Missing required parameter: 'tools[${index}].name'.`,
        param: `tools[${index}].name`,
      };
  }
  return undefined;
}
