import type { ToolProgress } from '@agcore/tools-core';
import {
  type AuthInfo,
  acceptedContent,
  createMcpHandler,
  inputRequired,
  type McpHttpHandler,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
  type ServerEventBus,
} from '@modelcontextprotocol/server';
import type { CallRequest, ToolCalls } from '../../calls/tool-calls.js';
import { missingCapabilities } from '../../clients/client-capabilities.js';
import { toolLog } from '../../clients/client-logging.js';
import type { Offerings } from '../../offerings/served-offerings.js';
import type { ListCacheHint, McpCaller } from '../../types.js';
import { declaredCapabilities, registerModernOfferings } from './modern-offerings.js';
import { RequestStateSeal, type SealedCall } from './request-state.js';

/** What the 2026-07-28 leg needs from `serveTools`. */
export interface ModernSetup {
  readonly calls: ToolCalls;
  readonly offerings: Offerings;
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly eventBus: ServerEventBus | undefined;
  readonly listCache: ListCacheHint | undefined;
  readonly maxRequestBodyBytes: number;
  readonly requestStateKey: string | Uint8Array | undefined;
  readonly requestStateTtlMs: number;
}

/** The elicitation field a tool's question is answered in. */
const answerKey = 'answer';

/** The v2 SDK's handler for 2026-07-28 traffic: a fresh `Server` per request. */
export function createModernHandler(setup: ModernSetup): McpHttpHandler {
  const seal =
    setup.requestStateKey === undefined
      ? undefined
      : new RequestStateSeal(setup.requestStateKey, setup.requestStateTtlMs);
  const cacheHint = {
    ttlMs: setup.listCache?.ttlMs ?? 0,
    cacheScope: setup.listCache?.cacheScope ?? 'private',
  } as const;
  const factory = () => {
    const server = new Server(
      { name: setup.serverInfo.name, version: setup.serverInfo.version },
      {
        capabilities: {
          tools: { listChanged: setup.eventBus !== undefined },
          logging: {},
          ...setup.offerings.capabilities({
            listChanged: setup.eventBus !== undefined,
            subscribe: setup.eventBus !== undefined,
          }),
        },
        cacheHints: {
          'tools/list': cacheHint,
          ...(setup.offerings.resources === undefined
            ? {}
            : { 'resources/list': cacheHint, 'resources/templates/list': cacheHint }),
          ...(setup.offerings.prompts === undefined ? {} : { 'prompts/list': cacheHint }),
        },
      },
    );
    server.setRequestHandler('tools/list', () => ({ tools: setup.calls.list() }));
    if (setup.offerings.any) registerModernOfferings(server, setup.offerings, callerOf);
    server.setRequestHandler('tools/call', (request, context) =>
      callTool(setup, seal, request.params, context),
    );
    return server;
  };
  return createMcpHandler(factory, {
    legacy: 'reject',
    maxRequestBodySize: setup.maxRequestBodyBytes,
    ...(setup.eventBus === undefined ? {} : { bus: setup.eventBus }),
  });
}

/** The caller as `serveTools` hands it to the v2 handler, inside `AuthInfo`. */
export function callerAuthInfo(caller: McpCaller | undefined): AuthInfo | undefined {
  if (caller === undefined) return undefined;
  return { token: '', clientId: caller.id, scopes: [...(caller.scopes ?? [])], extra: { caller } };
}

function callerOf(context: ServerContext): McpCaller | undefined {
  const caller = context.http?.authInfo?.extra?.caller;
  return typeof caller === 'object' && caller !== null ? (caller as McpCaller) : undefined;
}

interface CallParams {
  readonly name: string;
  readonly arguments?: Record<string, unknown>;
  readonly _meta?: Record<string, unknown>;
}

async function callTool(
  setup: ModernSetup,
  seal: RequestStateSeal | undefined,
  params: CallParams,
  context: ServerContext,
) {
  const missing = missingCapabilities(
    setup.calls.requiredCapabilities(params.name),
    declaredCapabilities(context),
  );
  if (missing !== undefined) {
    throw new MissingRequiredClientCapabilityError(
      { requiredCapabilities: missing },
      `${params.name} needs the client capabilities ${Object.keys(missing).join(', ')}, which this request did not declare in its clientCapabilities: the call did not run.`,
    );
  }
  const caller = callerOf(context);
  const args = params.arguments ?? {};
  const meta = { ...(params._meta ?? {}), ...(context.mcpReq._meta ?? {}) } as Record<
    string,
    unknown
  >;
  const request: CallRequest = {
    name: params.name,
    args,
    meta,
    signal: context.mcpReq.signal,
    caller,
    progress: progressOf(meta, context),
    log: toolLog(
      () => true,
      (level, data) => context.mcpReq.log(level, data),
    ),
  };
  const echoed = context.mcpReq.requestState<string>();
  if (typeof echoed === 'string') {
    // SEP-2322: state that fails integrity verification is a JSON-RPC error, not a tool result.
    if (seal === undefined)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'This server seals no request state: the echoed requestState is refused.',
      );
    const opened = await seal.open(echoed, { toolName: params.name, args, callerId: caller?.id });
    if (!opened.ok)
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `The echoed requestState of ${params.name} is refused: ${opened.reason}.`,
      );
    const answer = acceptedContent(context.mcpReq.inputResponses, answerKey)?.[answerKey];
    if (answer === undefined)
      return setup.calls.errorResult(
        'denied',
        `The question of ${params.name} was declined or not answered; the call did not run again.`,
      );
    return finish(setup, seal, { ...request, input: inputOf(answer, opened.call) });
  }
  return finish(setup, seal, request);
}

async function finish(
  setup: ModernSetup,
  seal: RequestStateSeal | undefined,
  request: CallRequest,
) {
  const outcome = await setup.calls.call(request);
  if (outcome.kind === 'result') return outcome.result;
  if (seal === undefined) {
    return setup.calls.errorResult(
      'other',
      `${request.name} asks for input ("${outcome.prompt}"), but this server has no requestStateKey to seal the question with: pass serveTools(registry, { requestStateKey }) to answer input_required.`,
    );
  }
  const state = await seal.seal({
    toolName: request.name,
    args: request.args,
    callerId: request.caller?.id,
    ...(outcome.data === undefined ? {} : { data: outcome.data }),
  });
  return inputRequired({
    inputRequests: {
      [answerKey]: inputRequired.elicit({
        message: outcome.prompt,
        requestedSchema: {
          type: 'object',
          properties: { [answerKey]: { type: 'string', description: outcome.prompt } },
          required: [answerKey],
        },
      }),
    },
    requestState: state,
  });
}

function inputOf(answer: unknown, call: SealedCall) {
  const value =
    typeof answer === 'string' || typeof answer === 'number' || typeof answer === 'boolean'
      ? answer
      : String(answer);
  return { value, ...(call.data === undefined ? {} : { data: call.data }) };
}

function progressOf(
  meta: Record<string, unknown>,
  context: ServerContext,
): ((update: ToolProgress) => void) | undefined {
  const token = meta.progressToken;
  if (typeof token !== 'string' && typeof token !== 'number') return undefined;
  return (update) => {
    void context.mcpReq
      .notify({ method: 'notifications/progress', params: { progressToken: token, ...update } })
      .catch(() => undefined);
  };
}
