import type { JsonObject } from '@agcore/tools-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type {
  McpElicitationHandler,
  McpElicitationRequest,
  McpElicitationResult,
} from '../types.js';

/** The capabilities a client declares: elicitation (form mode, defaults applied) with a handler. */
export function elicitationCapabilities(handler: McpElicitationHandler | undefined): {
  readonly elicitation?: { readonly form: { readonly applyDefaults: true } };
} {
  return handler === undefined ? {} : { elicitation: { form: { applyDefaults: true } } };
}

/** Answers the server's `elicitation/create` requests with `handler`. */
export function answerElicitations(
  sdk: Client,
  handler: McpElicitationHandler,
  serverName: string,
): void {
  sdk.setRequestHandler(ElicitRequestSchema, async (request, extra) =>
    toElicitResult(
      await handler(toElicitationRequest(request.params), { serverName, signal: extra.signal }),
    ),
  );
}

/** The params of an `elicitation/create` request (either SDK's) as the handler gets them. */
export function toElicitationRequest(params: {
  readonly mode?: string;
  readonly message: string;
}): McpElicitationRequest {
  return {
    mode: params.mode === 'url' ? 'url' : 'form',
    message: params.message,
    ...('requestedSchema' in params && params.requestedSchema !== undefined
      ? { requestedSchema: params.requestedSchema as unknown as JsonObject }
      : {}),
    ...('url' in params && typeof params.url === 'string' ? { url: params.url } : {}),
    ...('elicitationId' in params && typeof params.elicitationId === 'string'
      ? { elicitationId: params.elicitationId }
      : {}),
  };
}

/** The handler's answer as the `elicitation/create` result. */
export function toElicitResult(
  result: McpElicitationResult,
):
  | { action: 'accept'; content?: { [field: string]: string | number | boolean | string[] } }
  | { action: 'decline' | 'cancel' } {
  return result.action === 'accept'
    ? {
        action: 'accept' as const,
        ...(result.content === undefined ? {} : { content: { ...result.content } }),
      }
    : { action: result.action };
}
