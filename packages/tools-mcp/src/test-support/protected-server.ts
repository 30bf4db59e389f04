// An MCP server over Streamable HTTP on 127.0.0.1 that wants a bearer token: the real SDK
// server behind a check the test chooses (a fixed token, or a JWT verified against a JWKS).
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/** What the check says of a request's token. */
export type TokenVerdict =
  | { readonly ok: true; readonly scopes: readonly string[] }
  | { readonly ok: false; readonly error: string; readonly description: string };

/** Options of `startProtectedServer`. */
export interface ProtectedServerOptions {
  /** Checks the bearer token (undefined: none was sent). */
  readonly verify: (
    token: string | undefined,
    resource: string,
  ) => Promise<TokenVerdict> | TokenVerdict;
  /** The protected resource metadata's authorization servers (none: no metadata served). */
  readonly authorizationServers?: () => readonly string[];
  /** Overrides the `resource` of the metadata (default: the server's /mcp URL). */
  readonly resource?: () => string;
  /** Scopes the metadata lists. */
  readonly scopesSupported?: readonly string[];
  /** A tool that needs this scope: `admin` (403 insufficient_scope without it). */
  readonly adminScope?: string;
}

/** A running protected server. */
export interface ProtectedServer {
  /** Its MCP endpoint, `http://127.0.0.1:port/mcp`. */
  readonly url: string;
  readonly origin: string;
  /** The Authorization headers it received, in order. */
  readonly authorizations: (string | undefined)[];
  stop(): Promise<void>;
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startProtectedServer(
  options: ProtectedServerOptions,
): Promise<ProtectedServer> {
  const authorizations: (string | undefined)[] = [];
  let origin = '';
  const server = createServer((request, response) => {
    void handle(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = new URL(request.url ?? '/', origin).pathname;
    if (path.startsWith('/.well-known/oauth-protected-resource')) {
      if (options.authorizationServers === undefined) return void response.writeHead(404).end();
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          resource: options.resource?.() ?? `${origin}/mcp`,
          authorization_servers: options.authorizationServers(),
          ...(options.scopesSupported === undefined
            ? {}
            : { scopes_supported: options.scopesSupported }),
        }),
      );
      return;
    }
    if (path !== '/mcp') return void response.writeHead(404).end();
    const header = request.headers.authorization;
    authorizations.push(header);
    const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    const metadata = `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;
    const verdict = await options.verify(token, `${origin}/mcp`);
    if (!verdict.ok) {
      const error =
        token === undefined
          ? ''
          : `, error="${verdict.error}", error_description="${verdict.description.replace(/["\\]/g, '\\$&')}"`;
      response.writeHead(401, { 'www-authenticate': `Bearer ${metadata}${error}` }).end();
      return;
    }
    const body = await readJson(request);
    const wantsAdmin =
      typeof body === 'object' &&
      body !== null &&
      (body as { params?: { name?: unknown } }).params?.name === 'admin';
    if (
      wantsAdmin &&
      options.adminScope !== undefined &&
      !verdict.scopes.includes(options.adminScope)
    ) {
      response
        .writeHead(403, {
          'www-authenticate': `Bearer error="insufficient_scope", scope="${options.adminScope}", ${metadata}`,
        })
        .end();
      return;
    }
    const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says which scopes the token has.' }, async () => ({
      content: [{ type: 'text', text: `scopes: ${verdict.scopes.join(' ')}` }],
    }));
    mcp.registerTool(
      'leak',
      { description: 'Fails, echoing the Authorization header.' },
      async () => ({
        isError: true,
        content: [
          { type: 'text', text: `cannot use ${header ?? ''} (as JSON: ${JSON.stringify(token)})` },
        ],
      }),
    );
    mcp.registerTool('admin', { description: 'Needs the admin scope.' }, async () => ({
      content: [{ type: 'text', text: 'admin done' }],
    }));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(request, response, body);
  };
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    authorizations,
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  if (request.method !== 'POST') return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}
