// Where the MCP server of the bench lives, and how every client starts it: the same Node
// binary as the bench (Node 22), `server-everything` over stdio.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

/** The stdio command line of `@modelcontextprotocol/server-everything`. */
export function everythingServer() {
  const root = dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'));
  return { command: process.execPath, args: [join(root, 'dist', 'index.js'), 'stdio'] };
}

/** The argument of every echo call, and the text the server must answer. */
export const ECHO_MESSAGE = 'hello from the bench';
export const ECHO_TEXT = `Echo: ${ECHO_MESSAGE}`;
