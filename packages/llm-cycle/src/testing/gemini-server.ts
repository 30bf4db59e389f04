/**
 * A real HTTP server on 127.0.0.1 that plays a script in the Gemini API wire format (replies
 * built with `geminiBody`, `geminiStream`, …) and refuses, as the API does, a request that
 * breaks its rules. Node only.
 */
import type {
  ChatCompletionsServer,
  ChatCompletionsServerOptions,
  ReceivedRequest,
  ServerReply,
} from './chat-completions-server.js';
import { geminiError, geminiSignature } from './gemini-wire.js';
import { startGuardedServer } from './guarded-server.js';

/** A running Gemini server; `baseURL` is the API root to give `createGeminiProvider`. */
export interface GeminiServer extends ChatCompletionsServer {
  /** `http://127.0.0.1:<port>/v1beta` (the provider appends `/models/{model}:generateContent`). */
  readonly baseURL: string;
}

/** Options of `startGeminiServer`. */
export interface GeminiServerOptions extends ChatCompletionsServerOptions {
  /** Answer a request that breaks the API's rules with its 4xx (default `true`). */
  readonly checkRequests?: boolean;
}

/**
 * Starts the server. Each reply waits for a request that follows the rules of `geminiRuleBreak`;
 * a request that breaks one gets the API's error instead (and takes the reply).
 * @throws {Error} when the port is taken
 */
export async function startGeminiServer(options: GeminiServerOptions = {}): Promise<GeminiServer> {
  return startGuardedServer(options, options.checkRequests !== false, geminiRuleBreak, '/v1beta');
}

type Wire = Record<string, unknown>;
const isWire = (value: unknown): value is Wire =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function refuse(code: number, status: string, message: string): ServerReply {
  return { kind: 'json', status: code, body: geminiError(code, status, message) };
}

/** The signatures the thought-signatures guide lets a client put on calls it did not get from Gemini. */
const skipSignatures = new Set([
  'context_engineering_is_the_way_to_go',
  'skip_thought_signature_validator',
]);

const path = /^\/v1beta\/models\/[^/:]+:(generateContent|streamGenerateContent)(\?.*)?$/;

/**
 * The API's answer to a request that breaks a rule, or `undefined` when it follows them:
 * - `POST /v1beta/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse`
 *   (ai.google.dev/api/generate-content), else 404 `NOT_FOUND`;
 * - an `x-goog-api-key` header, else 403 `PERMISSION_DENIED` (ai.google.dev/api#authentication);
 * - non-empty `contents`, each with role `user` or `model` and parts, else 400 `INVALID_ARGUMENT`;
 * - each model turn's `functionCall`s answered in the next turn (a `user` one) by as many
 *   `functionResponse`s, by name (and id when the call had one) (function-calling guide);
 * - in the current turn (since the last user text), the first `functionCall` of each model
 *   step carrying the `thoughtSignature` it came with (ai.google.dev/gemini-api/docs/thought-signatures:
 *   Gemini 3 answers 400 when it is missing).
 */
export function geminiRuleBreak(request: ReceivedRequest): ServerReply | undefined {
  const match = path.exec(request.url);
  if (request.method !== 'POST' || match === null)
    return refuse(404, 'NOT_FOUND', `Not found: ${request.method} ${request.url}`);
  if (match[1] === 'streamGenerateContent' && !(match[2] ?? '').includes('alt=sse'))
    return refuse(400, 'INVALID_ARGUMENT', 'This test server streams only with alt=sse.');
  if (typeof request.headers['x-goog-api-key'] !== 'string')
    return refuse(
      403,
      'PERMISSION_DENIED',
      "Method doesn't allow unregistered callers. Please use API Key.",
    );
  const body = request.body;
  if (!isWire(body) || !Array.isArray(body.contents) || body.contents.length === 0)
    return refuse(
      400,
      'INVALID_ARGUMENT',
      '* GenerateContentRequest.contents: contents is not specified',
    );
  const problem = historyProblem(body.contents);
  return problem === undefined ? undefined : refuse(400, 'INVALID_ARGUMENT', problem);
}

function partsOf(content: Wire): Wire[] {
  return Array.isArray(content.parts) ? content.parts.filter(isWire) : [];
}

/** The index of the first content of the current turn: just after the last user text. */
function currentTurn(contents: readonly Wire[]): number {
  for (let index = contents.length - 1; index >= 0; index--) {
    const content = contents[index] as Wire;
    if (content.role === 'user' && partsOf(content).some((part) => typeof part.text === 'string'))
      return index + 1;
  }
  return 0;
}

/** The first rule the history breaks, in the API's words. */
function historyProblem(raw: readonly unknown[]): string | undefined {
  const contents = raw.filter(isWire);
  if (contents.length !== raw.length) return '* GenerateContentRequest.contents: not an object';
  const current = currentTurn(contents);
  let expected: Wire[] = [];
  for (const [index, content] of contents.entries()) {
    const parts = partsOf(content);
    if ((content.role !== 'user' && content.role !== 'model') || parts.length === 0)
      return `* GenerateContentRequest.contents[${index}]: a content needs role user or model and parts`;
    const responses = parts.flatMap((part) =>
      isWire(part.functionResponse) ? [part.functionResponse] : [],
    );
    if (expected.length > 0 || responses.length > 0) {
      const answered =
        content.role === 'user' &&
        responses.length === expected.length &&
        expected.every((call, position) => {
          const response = responses[position] as Wire;
          return response.name === call.name && (call.id === undefined || response.id === call.id);
        });
      if (!answered)
        return `* GenerateContentRequest.contents[${index}]: Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.`;
    }
    expected = [];
    if (content.role !== 'model') continue;
    const calls = parts.filter((part) => isWire(part.functionCall));
    expected = calls.map((part) => part.functionCall as Wire);
    const first = calls[0];
    if (first === undefined || index < current) continue;
    const signature = first.thoughtSignature;
    const call = first.functionCall as Wire;
    const expectedSignature = geminiSignature({
      name: String(call.name),
      args: (call.args ?? {}) as Record<string, unknown>,
    });
    if (signature !== expectedSignature && !skipSignatures.has(String(signature)))
      return `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`${String(call.name)}\` , position ${index + 1}.`;
  }
  return undefined;
}
