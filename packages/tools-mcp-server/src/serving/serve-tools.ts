import type { Server as HttpServer, IncomingMessage, ServerResponse } from 'node:http';
import type { ToolRegistry } from '@agcore/tools-registry';
import { isLegacyRequest } from '@modelcontextprotocol/server';
import { ToolCalls } from '../calls/tool-calls.js';
import { LogLevels } from '../clients/client-logging.js';
import { type LegacySetup, legacyValidator, serveLegacy } from '../eras/legacy/legacy-era.js';
import { callerAuthInfo, createModernHandler } from '../eras/modern/modern-era.js';
import { Offerings } from '../offerings/served-offerings.js';
import type {
  ListeningServer,
  ListenOptions,
  McpCaller,
  McpProtocolRevision,
  ServeToolsOptions,
  ToolServer,
} from '../types.js';
import { changeNotices } from './change-notices.js';
import {
  hostRefusal,
  jsonRpcError,
  loopbackHostNames,
  originRefusal,
  readBoundedBody,
} from './http-guards.js';
import { serveNode } from './node-adapter.js';

const defaultProtocols: readonly McpProtocolRevision[] = ['2025-11-25', '2026-07-28'];
const defaultMaxBodyBytes = 1024 * 1024;
/** One decoder for every request body (decoding without `stream` keeps no state between calls). */
const utf8 = new TextDecoder();

interface RequestFacts {
  readonly loopback: boolean;
}

/**
 * Serves `registry` as a stateless MCP server over Streamable HTTP: a fresh protocol server per
 * request, 2025-11-25 on the v1 SDK and 2026-07-28 on the v2 SDK, every call through
 * `registry.invoke`. Throws `TypeError` / `RangeError` for a malformed option.
 */
export function serveTools(registry: ToolRegistry, options: ServeToolsOptions = {}): ToolServer {
  const path = options.path ?? '/mcp';
  if (!path.startsWith('/'))
    throw new TypeError(`serveTools: path must start with "/", got ${JSON.stringify(path)}`);
  const protocols = new Set(options.protocols ?? defaultProtocols);
  if (protocols.size === 0)
    throw new TypeError('serveTools: protocols must name at least one revision');
  const maxBodyBytes = options.maxRequestBodyBytes ?? defaultMaxBodyBytes;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    throw new RangeError(
      `serveTools: maxRequestBodyBytes must be a positive integer, got ${String(maxBodyBytes)}`,
    );
  }
  const calls = new ToolCalls(registry, options);
  const offerings = new Offerings(registry, options);
  const notices = changeNotices(options);
  const serverInfo = options.serverInfo ?? { name: 'agcore-tools', version: '0.1.0' };
  const legacy: LegacySetup = {
    calls,
    offerings,
    logLevels: new LogLevels(),
    serverInfo,
    listChanged: notices.bus !== undefined,
    ...(protocols.has('2025-11-25') ? { jsonSchemaValidator: legacyValidator() } : {}),
  };
  const modern = protocols.has('2026-07-28')
    ? createModernHandler({
        calls,
        offerings,
        serverInfo,
        eventBus: notices.bus,
        listCache: options.listCache,
        maxRequestBodyBytes: maxBodyBytes,
        requestStateKey: options.requestStateKey,
        requestStateTtlMs: options.requestStateTtlMs ?? 600_000,
      })
    : undefined;
  const shutdown = new AbortController();
  const servers = new Set<HttpServer>();
  const allowedOrigins = options.allowedOrigins ?? loopbackHostNames();

  /** Reads the bounded body, picks the era and serves the call. */
  const servePost = async (request: Request, caller: McpCaller | undefined): Promise<Response> => {
    const body = await readBoundedBody(request, maxBodyBytes);
    if (body === undefined)
      return jsonRpcError(
        413,
        -32000,
        `The request body is over ${maxBodyBytes} bytes (maxRequestBodyBytes).`,
      );
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(utf8.decode(body));
    } catch {
      return jsonRpcError(400, -32700, 'Parse error: the request body is not JSON.');
    }
    const signal = AbortSignal.any([request.signal, shutdown.signal]);
    if (await isLegacyRequest(request, parsedBody, { maxRequestBodySize: maxBodyBytes })) {
      if (!protocols.has('2025-11-25')) {
        return jsonRpcError(
          400,
          -32600,
          'This server speaks MCP 2026-07-28 only: connect with protocol version negotiation.',
        );
      }
      // The v1 transport reads only the headers (the body is handed over parsed), so the request
      // is not copied: the call's signal goes beside it.
      return serveLegacy(legacy, request, parsedBody, caller, signal);
    }
    if (modern === undefined) {
      return jsonRpcError(
        400,
        -32600,
        'This server speaks MCP 2025-11-25 only: connect with the initialize handshake.',
      );
    }
    // The v2 handler takes a call's cancellation from `request.signal`: a copy carries ours.
    const fresh = new Request(request.url, {
      method: 'POST',
      headers: request.headers,
      body,
      signal,
    });
    const authInfo = callerAuthInfo(caller);
    return modern.fetch(fresh, { parsedBody, ...(authInfo === undefined ? {} : { authInfo }) });
  };

  const handle = async (request: Request, facts: RequestFacts): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname === '/healthz' && (request.method === 'GET' || request.method === 'HEAD')) {
      return new Response(JSON.stringify({ status: 'ok' }), {
        headers: { 'content-type': 'application/json' },
      });
    }
    if (url.pathname !== path)
      return jsonRpcError(404, -32000, `No MCP endpoint at ${url.pathname}: it is ${path}.`);
    const hosts = options.allowedHosts ?? (facts.loopback ? loopbackHostNames() : undefined);
    const refused = hostRefusal(request, hosts) ?? originRefusal(request, allowedOrigins);
    if (refused !== undefined) return refused;
    const stream = request.method === 'GET' && notices.bus !== undefined;
    if (request.method !== 'POST' && !stream) {
      return jsonRpcError(
        405,
        -32000,
        'Method not allowed: this stateless server answers POST only (no session, no GET stream).',
        {
          allow: 'POST',
        },
      );
    }
    const caller = await authenticate(options, request);
    if (caller === 'refused') {
      return jsonRpcError(401, -32001, 'Unauthorized: send a valid bearer token.', {
        'www-authenticate': 'Bearer',
      });
    }
    // The 2025 notification stream: the changes of `eventBus` / `changes` (change-notices.ts).
    if (stream) return notices.openStream(request, shutdown.signal);
    return servePost(request, caller);
  };

  const guarded = async (request: Request, facts: RequestFacts): Promise<Response> => {
    try {
      return await handle(request, facts);
    } catch {
      return jsonRpcError(500, -32603, 'Internal error while serving the request.');
    }
  };

  return {
    node: (request: IncomingMessage, response: ServerResponse) =>
      serveNode(request, response, guarded),
    fetch: (request: Request) => guarded(request, { loopback: false }),
    listen: async (listenOptions: ListenOptions) => {
      const http = await import('node:http');
      const server = http.createServer((request, response) =>
        serveNode(request, response, guarded),
      );
      const host = listenOptions.host ?? '127.0.0.1';
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(listenOptions.port, host, () => resolve());
      });
      servers.add(server);
      const address = server.address();
      const port =
        typeof address === 'object' && address !== null ? address.port : listenOptions.port;
      const shownHost = host.includes(':') ? `[${host}]` : host;
      const listening: ListeningServer = {
        url: `http://${shownHost}:${port}${path}`,
        close: () => closeServer(server, servers),
      };
      return listening;
    },
    close: async () => {
      shutdown.abort(new Error('the server is closing'));
      notices.stop();
      await Promise.all([...servers].map((server) => closeServer(server, servers)));
      await modern?.close();
    },
  };
}

async function authenticate(
  options: ServeToolsOptions,
  request: Request,
): Promise<McpCaller | undefined | 'refused'> {
  if (options.authenticate === undefined) return undefined;
  try {
    const caller = await options.authenticate(request);
    return caller === undefined ? 'refused' : caller;
  } catch {
    return 'refused';
  }
}

function closeServer(server: HttpServer, servers: Set<HttpServer>): Promise<void> {
  servers.delete(server);
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
