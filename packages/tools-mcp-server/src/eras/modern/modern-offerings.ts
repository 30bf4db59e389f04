/** The 2026-era handlers of resources, prompts and completions (v2 SDK). */
import {
  ProtocolError,
  ResourceNotFoundError,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import {
  OfferingError,
  type Offerings,
  offeringErrorCode,
} from '../../offerings/served-offerings.js';
import type { McpRequestInfo } from '../../offerings.js';
import type { McpCaller } from '../../types.js';

/** The request envelope key of the client's declared capabilities (2026-07-28). */
const clientCapabilitiesKey = 'io.modelcontextprotocol/clientCapabilities';

/** The capabilities the request declared, from its `_meta` envelope. */
export function declaredCapabilities(
  context: ServerContext,
): Readonly<Record<string, unknown>> | undefined {
  const envelope = context.mcpReq.envelope as Readonly<Record<string, unknown>> | undefined;
  const declared = envelope?.[clientCapabilitiesKey];
  return typeof declared === 'object' && declared !== null
    ? (declared as Record<string, unknown>)
    : undefined;
}

/** An `OfferingError` as the v2 SDK sends it (a miss as `ResourceNotFoundError`). */
function asProtocolError(error: unknown): unknown {
  if (!(error instanceof OfferingError)) return error;
  const uri = error.data?.uri;
  if (error.code === offeringErrorCode.resourceNotFound && typeof uri === 'string')
    return new ResourceNotFoundError(uri, error.message);
  return new ProtocolError(error.code, error.message, error.data);
}

/** Registers the resource, prompt and completion handlers `offerings` serves. */
export function registerModernOfferings(
  server: Server,
  offerings: Offerings,
  callerOf: (context: ServerContext) => McpCaller | undefined,
): void {
  const info = (context: ServerContext): McpRequestInfo => {
    const caller = callerOf(context);
    return { signal: context.mcpReq.signal, ...(caller === undefined ? {} : { caller }) };
  };
  const mapped = <T>(run: () => Promise<T>): Promise<T> =>
    run().catch((error: unknown) => {
      throw asProtocolError(error);
    });
  if (offerings.resources !== undefined) {
    server.setRequestHandler('resources/list', (request, context) =>
      mapped(() => offerings.listResources(request.params?.cursor, info(context))),
    );
    server.setRequestHandler('resources/templates/list', (_request, context) =>
      mapped(() => offerings.listResourceTemplates(info(context))),
    );
    server.setRequestHandler('resources/read', (request, context) =>
      mapped(() => offerings.readResource(request.params.uri, info(context))),
    );
  }
  if (offerings.prompts !== undefined) {
    server.setRequestHandler('prompts/list', (request, context) =>
      mapped(() => offerings.listPrompts(request.params?.cursor, info(context))),
    );
    server.setRequestHandler('prompts/get', (request, context) =>
      mapped(() =>
        offerings.getPrompt(request.params.name, request.params.arguments ?? {}, info(context)),
      ),
    );
  }
  if (offerings.any) {
    server.setRequestHandler('completion/complete', (request, context) =>
      mapped(() =>
        offerings.complete(
          request.params.ref,
          request.params.argument,
          request.params.context?.arguments,
          info(context),
        ),
      ),
    );
  }
}
