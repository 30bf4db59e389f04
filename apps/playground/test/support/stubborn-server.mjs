// server-everything (stdio) that will not stop: it ignores SIGINT, SIGTERM, the end of its
// stdin and the SDK's process.exit on close, so only SIGKILL ends it. It shows what a second
// Ctrl-C must do while the playground waits for a server to stop.
import { createRequire } from 'node:module';

process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
process.exit = () => undefined;
setInterval(() => {}, 1000);
process.argv.push('stdio');
await import(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js')
);
