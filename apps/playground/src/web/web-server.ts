import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { handleDurableApi } from './durable-api.js';
import { EventHub } from './event-hub.js';
import { sendJson } from './responses.js';
import { type ApiContext, closeApi, handleApi } from './web-api.js';

/** The page's files: `page/` of the package (two levels above `src/web/` and `dist/web/`). */
export const pageDir = fileURLToPath(new URL('../../page/', import.meta.url));

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** What the server is started with. */
export interface WebServerOptions extends Omit<ApiContext, 'hub'> {
  /** The port on 127.0.0.1; 0 (the default) picks a free one. */
  readonly port?: number;
}

/** A started server: its URL (with the token) and how to stop it. */
export interface WebServer {
  /** `http://127.0.0.1:PORT/?token=...`: the only way in. */
  readonly url: string;
  /** Ends the event streams and stops listening. Never rejects. */
  close(): Promise<void>;
}

/**
 * Serves the page on 127.0.0.1 only: every request (the page, its modules, the event stream,
 * every POST) must carry the per-launch token in its query (`?token=`), else 401; a `Host`
 * that is not the loopback address (DNS rebinding) is refused too.
 * @throws when the port is taken or cannot be bound
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const token = randomBytes(24).toString('base64url');
  const hub = new EventHub();
  const context: ApiContext = { ...options, hub };
  const assets = readAssets();
  const server = createServer((request, response) => {
    handle(request, response, { token, context, assets }).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: String(error) });
      else response.end();
    });
  });
  const port = await listen(server, options.port ?? 0);
  return {
    url: `http://127.0.0.1:${port}/?token=${token}`,
    close: async () => {
      await closeApi(context);
      hub.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The page's files, read once: name → contents. */
function readAssets(): Map<string, string> {
  const assets = new Map<string, string>();
  for (const name of readdirSync(pageDir)) {
    if (contentTypes[path.extname(name)] !== undefined) {
      assets.set(name, readFileSync(path.join(pageDir, name), 'utf8'));
    }
  }
  return assets;
}

interface Route {
  readonly token: string;
  readonly context: ApiContext;
  readonly assets: Map<string, string>;
}

async function handle(request: IncomingMessage, response: ServerResponse, route: Route) {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (!isLoopbackHost(request.headers.host)) {
    sendJson(response, 403, { error: 'Only http://127.0.0.1 serves this page.' });
    return;
  }
  if (!tokenMatches(url.searchParams.get('token'), route.token)) {
    sendJson(response, 401, {
      error: 'The token is missing or wrong: open the URL the playground printed.',
    });
    return;
  }
  if (url.pathname === '/events' && request.method === 'GET') {
    route.context.hub.attach(response, Number(request.headers['last-event-id'] ?? 0) || 0);
    return;
  }
  const durable = route.context.durable;
  if (durable !== undefined && url.pathname.startsWith('/api/durable/')) {
    await handleDurableApi(request, response, url, durable);
    return;
  }
  if (url.pathname.startsWith('/api/')) {
    await handleApi(request, response, url, route.context);
    return;
  }
  const home = durable === undefined ? 'index.html' : 'durable.html';
  const name = url.pathname === '/' ? home : url.pathname.slice(1);
  const body = route.assets.get(name);
  if (body === undefined || request.method !== 'GET') {
    sendJson(response, 404, { error: `No ${url.pathname} here.` });
    return;
  }
  sendAsset(response, name, body, route);
}

function sendAsset(response: ServerResponse, name: string, body: string, route: Route): void {
  const nonce = randomBytes(16).toString('base64');
  const text = name.endsWith('.html')
    ? body
        .replace('{"imports": {}}', importMap(route))
        .replaceAll('{{NONCE}}', nonce)
        .replaceAll('{{TOKEN}}', route.token)
    : body;
  response.writeHead(200, {
    'content-type': contentTypes[path.extname(name)] ?? 'text/plain',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'content-security-policy': `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  });
  response.end(text);
}

/** Maps each module's URL to itself with the token, so `import './x.js'` carries it too. */
function importMap(route: Route): string {
  const imports: Record<string, string> = {};
  for (const name of route.assets.keys()) {
    if (name.endsWith('.js')) imports[`/${name}`] = `/${name}?token=${route.token}`;
  }
  return JSON.stringify({ imports });
}

function isLoopbackHost(host: string | undefined): boolean {
  if (host === undefined) return false;
  return /^(127\.0\.0\.1|localhost)(:\d+)?$/.test(host);
}

function tokenMatches(given: string | null, token: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}
