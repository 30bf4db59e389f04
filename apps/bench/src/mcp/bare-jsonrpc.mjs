// The floor: JSON-RPC lines written to the child's stdin by hand, answers matched by id.
// No schema validation, no capabilities, nothing a client library adds.
import { spawn } from 'node:child_process';
import { ECHO_MESSAGE, everythingServer } from './server.mjs';

/** A hand-written stdio JSON-RPC client on server-everything. */
export async function create() {
  const { command, args } = everythingServer();
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
  const pending = new Map();
  let nextId = 1;
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text) => {
    buffer += text;
    let newline = buffer.indexOf('\n');
    while (newline !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf('\n');
      if (line.length === 0) continue;
      const message = JSON.parse(line);
      if (message.id === undefined) continue;
      const waiter = pending.get(message.id);
      if (waiter === undefined) continue;
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(message.error.message));
      else waiter.resolve(message.result);
    }
  });
  child.on('exit', (code) => {
    for (const waiter of pending.values()) waiter.reject(new Error(`server exited with ${code}`));
    pending.clear();
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'bench-bare', version: '1.0.0' },
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    call: async () => {
      const result = await request('tools/call', {
        name: 'echo',
        arguments: { message: ECHO_MESSAGE },
      });
      return result.content[0].text;
    },
    close: async () => {
      child.stdin.end();
      child.kill();
    },
  };
}
