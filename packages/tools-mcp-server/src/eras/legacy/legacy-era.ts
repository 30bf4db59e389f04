import type { ToolProgress } from '@agcore/tools-core';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { ToolCalls } from '../../calls/tool-calls.js';
import { type LogLevels, toolLog } from '../../clients/client-logging.js';
import type { Offerings } from '../../offerings/served-offerings.js';
import type { McpCaller } from '../../types.js';
import { registerLegacyOfferings, registerLegacySetLevel } from './legacy-offerings.js';

/** What the 2025-era leg needs from `serveTools`. */
export interface LegacySetup {
  readonly calls: ToolCalls;
  readonly serverInfo: { readonly name: string; readonly version: string };
  readonly listChanged: boolean;
  /** The resources and prompts served beside the tools. */
  readonly offerings: Offerings;
  /** The `logging/setLevel` levels, per caller. */
  readonly logLevels: LogLevels;
  /**
   * The JSON Schema engine every per-request `Server` shares. The v1 `Server` builds an Ajv
   * instance in its constructor when given none (about half a millisecond of CPU, the largest
   * part of a served call), and only uses it to check elicitation answers, which this server
   * never asks for; see `legacyValidator`.
   */
  readonly jsonSchemaValidator?: AjvJsonSchemaValidator;
}

/** One v1 JSON Schema engine, made once per `serveTools` server and shared by its requests. */
export function legacyValidator(): AjvJsonSchemaValidator {
  return new AjvJsonSchemaValidator();
}

/**
 * A v1 SDK `Server` for one 2025-era request (the stateless idiom: no session, a fresh server and
 * transport per request), with the `tools/list` and `tools/call` handlers.
 */
export function createLegacyServer(
  setup: LegacySetup,
  caller: McpCaller | undefined,
  requestSignal: AbortSignal,
): Server {
  const server = new Server(
    { name: setup.serverInfo.name, version: setup.serverInfo.version },
    {
      capabilities: {
        tools: { listChanged: setup.listChanged },
        logging: {},
        ...setup.offerings.capabilities({ listChanged: setup.listChanged, subscribe: false }),
      },
      ...(setup.jsonSchemaValidator === undefined
        ? {}
        : { jsonSchemaValidator: setup.jsonSchemaValidator }),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: setup.calls.list() }));
  registerLegacySetLevel(server, setup.logLevels, caller);
  if (setup.offerings.any) registerLegacyOfferings(server, setup.offerings, caller, requestSignal);
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const needs = setup.calls.requiredCapabilities(request.params.name);
    if (needs !== undefined && needs.length > 0) {
      return setup.calls.errorResult(
        'other',
        `${request.params.name} needs the client's ${needs.join(', ')} capability, which a stateless 2025-11-25 server cannot use: the call did not run; connect with protocol 2026-07-28.`,
      );
    }
    const meta = request.params._meta as Record<string, unknown> | undefined;
    const token = meta?.progressToken;
    const progress =
      typeof token === 'string' || typeof token === 'number'
        ? (update: ToolProgress) => {
            void extra
              .sendNotification({
                method: 'notifications/progress',
                params: { progressToken: token, ...update },
              })
              .catch(() => undefined);
          }
        : undefined;
    const outcome = await setup.calls.call({
      name: request.params.name,
      args: request.params.arguments ?? {},
      meta,
      signal: AbortSignal.any([requestSignal, extra.signal]),
      caller,
      progress,
      log: toolLog(
        (level) => setup.logLevels.passes(caller, level),
        (level, data) =>
          extra.sendNotification({ method: 'notifications/message', params: { level, data } }),
      ),
    });
    if (outcome.kind === 'result') return outcome.result;
    return setup.calls.errorResult(
      'other',
      `${request.params.name} asks for input ("${outcome.prompt}"), which needs MCP 2026-07-28 (input_required); this client speaks a 2025 revision: connect with protocol 2026-07-28 to answer it.`,
    );
  });
  return server;
}

/**
 * Serves one 2025-era request whose body was read as `parsedBody`; `signal` aborts when the
 * client goes away or the server closes. Resolves with its response (JSON or an SSE stream).
 */
export async function serveLegacy(
  setup: LegacySetup,
  request: Request,
  parsedBody: unknown,
  caller: McpCaller | undefined,
  signal: AbortSignal,
): Promise<Response> {
  const server = createLegacyServer(setup, caller, signal);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  await server.connect(transport);
  signal.addEventListener('abort', () => void server.close().catch(() => undefined), {
    once: true,
  });
  return transport.handleRequest(request, { parsedBody });
}
