// An MCP server over Streamable HTTP on 127.0.0.1 that wants a bearer token: the real SDK
// server behind a check the test chooses (a fixed token, or a JWT verified against a JWKS).
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { verifyDpopProof } from './dpop-verifier.js';

/** What the check says of a request's token. */
export type TokenVerdict =
  | {
      readonly ok: true;
      readonly scopes: readonly string[];
      /** The `cnf.jkt` of a DPoP-bound token (RFC 9449 §6). */
      readonly jkt?: string;
    }
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
  /**
   * DPoP (RFC 9449): challenges with the DPoP scheme, and wants DPoP-bound tokens presented
   * with a valid proof; `nonce: 'fixed'` requires the nonce it hands out, `'rotating'` asks for a
   * new one on every request and accepts none (a hostile server).
   */
  readonly dpop?: { readonly nonce?: 'fixed' | 'rotating' };
}

/** A running protected server. */
export interface ProtectedServer {
  /** Its MCP endpoint, `http://127.0.0.1:port/mcp`. */
  readonly url: string;
  readonly origin: string;
  /** The Authorization headers it received, in order. */
  readonly authorizations: (string | undefined)[];
  /** The DPoP proofs it received with a token, in order. */
  readonly proofs: string[];
  /** Why it refused a DPoP proof (not counting nonce challenges), in order. */
  readonly dpopErrors: string[];
  /** How many `use_dpop_nonce` challenges it sent. */
  readonly nonceChallenges: () => number;
  stop(): Promise<void>;
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startProtectedServer(
  options: ProtectedServerOptions,
): Promise<ProtectedServer> {
  const authorizations: (string | undefined)[] = [];
  const proofs: string[] = [];
  const dpopErrors: string[] = [];
  const seen = new Set<string>();
  let nonceChallenges = 0;
  let nonce = 'nonce-0';
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
    const [, scheme, token] = /^(Bearer|DPoP) (.+)$/.exec(header ?? '') ?? [];
    const metadata = `resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;
    const challenge = options.dpop === undefined ? 'Bearer' : 'DPoP algs="ES256",';
    const verdict = await options.verify(token, `${origin}/mcp`);
    const refuse = (error: string, description: string, extra: Record<string, string> = {}) =>
      void response
        .writeHead(401, {
          'www-authenticate': `${challenge} ${metadata}, error="${error}", error_description="${description.replace(/["\\]/g, '\\$&')}"`,
          ...extra,
        })
        .end();
    if (!verdict.ok) {
      if (token === undefined) {
        response.writeHead(401, { 'www-authenticate': `${challenge} ${metadata}` }).end();
        return;
      }
      return refuse(verdict.error, verdict.description);
    }
    if (verdict.jkt !== undefined || options.dpop !== undefined) {
      const proof = request.headers.dpop;
      if (typeof proof === 'string') proofs.push(proof);
      const checked =
        scheme !== 'DPoP'
          ? {
              ok: false as const,
              error: 'invalid_token',
              description: 'a DPoP-bound token needs the DPoP scheme',
            }
          : await verifyDpopProof(typeof proof === 'string' ? proof : undefined, {
              method: request.method ?? '',
              url: `${origin}${request.url ?? ''}`,
              accessToken: token ?? '',
              jkt: verdict.jkt,
              seen,
              ...(options.dpop?.nonce === undefined
                ? {}
                : { nonce: options.dpop.nonce === 'rotating' ? 'never-handed-out' : nonce }),
            });
      if (!checked.ok && checked.error === 'use_dpop_nonce') {
        nonceChallenges += 1;
        if (options.dpop?.nonce === 'rotating') nonce = `nonce-${nonceChallenges}`;
        return refuse('use_dpop_nonce', checked.description, { 'dpop-nonce': nonce });
      }
      if (!checked.ok) {
        dpopErrors.push(checked.description);
        return refuse(checked.error, checked.description);
      }
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
    proofs,
    dpopErrors,
    nonceChallenges: () => nonceChallenges,
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
