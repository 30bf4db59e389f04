// Runs a command as a child and copies everything written to its stdin to a log file: what a
// stdio MCP server received, byte for byte. `node stdin-tap.mjs LOG COMMAND [ARGS...]`.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [log, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'inherit', 'inherit'] });
process.stdin.on('data', (chunk) => {
  appendFileSync(log, chunk);
  child.stdin.write(chunk);
});
process.stdin.on('end', () => child.stdin.end());
child.stdin.on('error', () => undefined);
child.on('exit', (code) => process.exit(code ?? 1));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
