/** The 2025-era handlers of resources, prompts, completions and `logging/setLevel` (v1 SDK). */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CompleteRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { isLogLevel, type LogLevels } from '../../clients/client-logging.js';
import {
  OfferingError,
  type Offerings,
  offeringErrorCode,
} from '../../offerings/served-offerings.js';
import type { McpRequestInfo } from '../../offerings.js';
import type { McpCaller } from '../../types.js';

/** An `OfferingError` as the v1 SDK sends it; anything else as it is. */
function asMcpError(error: unknown): unknown {
  return error instanceof OfferingError
    ? new McpError(error.code, error.message, error.data)
    : error;
}

/** Registers the resource, prompt and completion handlers `offerings` serves. */
export function registerLegacyOfferings(
  server: Server,
  offerings: Offerings,
  caller: McpCaller | undefined,
  signal: AbortSignal,
): void {
  const info = (extra: { signal: AbortSignal }): McpRequestInfo => ({
    signal: AbortSignal.any([signal, extra.signal]),
    ...(caller === undefined ? {} : { caller }),
  });
  const mapped = <T>(run: () => Promise<T>): Promise<T> =>
    run().catch((error: unknown) => {
      throw asMcpError(error);
    });
  if (offerings.resources !== undefined) {
    server.setRequestHandler(ListResourcesRequestSchema, (request, extra) =>
      mapped(() => offerings.listResources(request.params?.cursor, info(extra))),
    );
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (_request, extra) =>
      mapped(() => offerings.listResourceTemplates(info(extra))),
    );
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) =>
      mapped(() => offerings.readResource(request.params.uri, info(extra))),
    );
  }
  if (offerings.prompts !== undefined) {
    server.setRequestHandler(ListPromptsRequestSchema, (request, extra) =>
      mapped(() => offerings.listPrompts(request.params?.cursor, info(extra))),
    );
    server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
      mapped(() =>
        offerings.getPrompt(request.params.name, request.params.arguments ?? {}, info(extra)),
      ),
    );
  }
  if (offerings.any) {
    server.setRequestHandler(CompleteRequestSchema, (request, extra) =>
      mapped(() =>
        offerings.complete(
          request.params.ref,
          request.params.argument,
          request.params.context?.arguments,
          info(extra),
        ),
      ),
    );
  }
}

/** `logging/setLevel`: the level is kept for the caller by this instance (`LogLevels`). */
export function registerLegacySetLevel(
  server: Server,
  levels: LogLevels,
  caller: McpCaller | undefined,
): void {
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    const { level } = request.params;
    if (!isLogLevel(level))
      throw new McpError(offeringErrorCode.invalidParams, `Unknown log level: ${String(level)}`);
    levels.set(caller, level);
    return {};
  });
}
