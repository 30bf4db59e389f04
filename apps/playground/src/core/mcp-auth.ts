import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { McpServerEntry } from '@agcore/tools-mcp';
import { createFileTokenStore } from '@agcore/tools-mcp/node';

/** How the playground signs a person in to an MCP server. */
export interface PlaygroundAuthOptions {
  /** Where OAuth tokens are kept (default `~/.agcore/mcp-tokens.json`, mode 0600). */
  readonly tokenFile?: string;
  /** Shows the authorization URL (default: to stderr). */
  readonly print?: (line: string) => void;
  /** Opens the URL in a browser on a desktop (default: `open`/`xdg-open`/`start`, when there is a display). */
  readonly openBrowser?: (url: string) => void;
}

/**
 * The entries with the playground's OAuth: each OAuth entry keeps its tokens in the token file,
 * and an `authorization_code` entry prints (and on a desktop opens) the authorization URL and
 * listens on its loopback `redirectUrl` for the browser to come back.
 */
export function withPlaygroundAuth(
  entries: readonly McpServerEntry[],
  options: PlaygroundAuthOptions = {},
): McpServerEntry[] {
  const tokenStore = createFileTokenStore(
    options.tokenFile ?? join(homedir(), '.agcore', 'mcp-tokens.json'),
  );
  const print = options.print ?? ((line: string) => process.stderr.write(`${line}\n`));
  const openBrowser = options.openBrowser ?? openInBrowser;
  return entries.map((entry) => {
    const transport = entry.transport;
    if (transport.type === 'stdio' || transport.auth === undefined) return entry;
    const auth = transport.auth;
    if (auth.type === 'bearer') return entry;
    // Only a person signing in has a redirect URL (client credentials, jwt_bearer: no browser).
    if (!('redirectUrl' in auth)) {
      return { ...entry, transport: { ...transport, auth: { ...auth, tokenStore } } };
    }
    const onAuthorize = async (authorizationUrl: URL): Promise<URL> => {
      const back = waitForRedirect(new URL(String(auth.redirectUrl)));
      print(`MCP server '${entry.name}' wants you to sign in: ${authorizationUrl}`);
      openBrowser(String(authorizationUrl));
      return back;
    };
    return {
      ...entry,
      transport: { ...transport, auth: { ...auth, tokenStore, onAuthorize } },
    };
  });
}

/**
 * Listens on the loopback `redirectUrl` (127.0.0.1, localhost or [::1] only) and resolves with
 * the first request to its path, then stops listening.
 *
 * @throws {Error} when `redirectUrl` is not a loopback http URL with a port.
 */
export async function waitForRedirect(redirectUrl: URL): Promise<URL> {
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(redirectUrl.hostname);
  if (redirectUrl.protocol !== 'http:' || !loopback || !(Number(redirectUrl.port) > 0)) {
    throw new Error(
      `The playground listens for the sign-in on a loopback redirectUrl such as http://127.0.0.1:8765/callback, not ${redirectUrl.origin}.`,
    );
  }
  let arrived: (url: URL) => void = () => {};
  const result = new Promise<URL>((resolve) => {
    arrived = resolve;
  });
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', redirectUrl);
    if (url.pathname !== redirectUrl.pathname) return void response.writeHead(404).end();
    response
      .writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
      .end('Signed in: you can close this tab and go back to the playground.\n');
    arrived(url);
  });
  server.listen(Number(redirectUrl.port), redirectUrl.hostname.replace(/^\[|\]$/g, ''));
  await once(server, 'listening');
  try {
    return await result;
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

function openInBrowser(url: string): void {
  const desktop =
    process.platform === 'darwin' ||
    process.platform === 'win32' ||
    process.env.DISPLAY !== undefined ||
    process.env.WAYLAND_DISPLAY !== undefined;
  if (!desktop) return;
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const child = spawn(command, args, { stdio: 'ignore', detached: true });
  child.on('error', () => {
    // No browser opener: the printed URL is enough.
  });
  child.unref();
}
