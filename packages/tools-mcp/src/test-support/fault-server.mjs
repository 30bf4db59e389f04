// A tiny MCP server on the SDK's low-level Server, with faults chosen by argv[2]:
//   exit-mid-call   answers initialize and tools/list, exits with code 3 when 'crash' is called
//   hang            answers initialize, never answers tools/call
//   garbage         prints non-JSON lines, a 10 MB line and a valid-JSON non-message between answers
//   huge-line       prints one 11 MiB line (over the SDK's limit) when 'flood' is called
//   no-initialize   reads stdin and never answers
//   ignore-sigterm  ignores SIGTERM and stdin EOF (needs SIGKILL)
//   startup-exit    writes to stderr and exits 7 before answering
//   paginated       tools/list in pages of 2 (7 tools), list_changed after 'add-tool'
//   echo-env        'env' returns the environment it got
//   odd-names       tools whose names need sanitising or shortening; each returns the name it got
//   colliding       two tools ('a.b', 'a/b') that sanitise to the same name
//   grandchild      starts a grandchild that inherits stdout (and outlives it), then as exit-mid-call
//   chatty          writes 1 MiB to stderr before serving, then as exit-mid-call
// Every mode: 'close-stdin' answers, then closes the server's stdin (the client then gets EPIPE);
// with FAULT_LOG set, start-up, every tools/list page, every call and every cancelled call are logged.

import { spawn } from 'node:child_process';
import { appendFileSync, closeSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const log = (line) => {
  if (process.env.FAULT_LOG) appendFileSync(process.env.FAULT_LOG, `${line}\n`);
};
log(`start ${process.pid}`);

const mode = process.argv[2] ?? 'exit-mid-call';
// Modes that stay up (hang, ignore-sigterm, a closed stdin) must not outlive a failed test run.
setTimeout(() => process.exit(0), 120_000).unref();

if (mode === 'startup-exit') {
  process.stderr.write('fatal: configuration file /nonexistent/config.toml not found\n');
  process.exit(7);
}
if (mode === 'chatty') {
  // A client that does not drain stderr blocks us here (pipe writes are synchronous on Linux
  // until the pipe is full; then Node may queue them, and the next writes wait behind).
  const line = `${'chatter '.repeat(127)}\n`;
  for (let index = 0; index < 1024; index++) process.stderr.write(line);
}
if (mode === 'grandchild') {
  const grandchild = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  log(`grandchild ${grandchild.pid}`);
}
if (mode === 'no-initialize') {
  process.stderr.write('starting, but will never answer\n');
  process.stdin.resume();
  setInterval(() => {}, 1000);
} else {
  if (mode === 'ignore-sigterm') {
    process.on('SIGTERM', () => process.stderr.write('ignoring SIGTERM\n'));
    setInterval(() => {}, 1000);
  }
  const extraTools = [];
  const baseTools = [
    {
      name: 'echo',
      description: 'Echoes',
      inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: 'crash',
      description: 'Exits the server',
      inputSchema: { type: 'object', properties: {} },
    },
    { name: 'hang', description: 'Never answers', inputSchema: { type: 'object', properties: {} } },
    {
      name: 'flood',
      description: 'Prints an over-long line',
      inputSchema: { type: 'object', properties: {} },
    },
    {
      name: 'env',
      description: 'Returns its environment',
      inputSchema: { type: 'object', properties: {} },
    },
    {
      name: 'add-tool',
      description: 'Adds a tool and says so',
      inputSchema: { type: 'object', properties: {} },
    },
    {
      name: 'fail',
      description: 'Reports an error',
      inputSchema: { type: 'object', properties: {} },
    },
    {
      name: 'close-stdin',
      description: 'Answers, then closes its stdin',
      inputSchema: { type: 'object', properties: {} },
    },
    {
      name: 'steps',
      description: 'Reports three progress steps, the last just before its result',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: 'media',
      description: 'Returns text, audio and an embedded resource',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: 'structured-image',
      description: 'Returns structuredContent with an image alongside',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    },
  ];
  const longName = `tool.${'very-long-name-'.repeat(5)}end`;
  const oddTools = [
    { name: 'weird.name/tool v2', inputSchema: { type: 'object', properties: {} } },
    { name: longName, inputSchema: { type: 'object', properties: {} } },
    { name: `${longName}2`, inputSchema: { type: 'object', properties: {} } },
  ];
  const collidingTools = [
    { name: 'a.b', inputSchema: { type: 'object', properties: {} } },
    { name: 'a/b', inputSchema: { type: 'object', properties: {} } },
    { name: 'echo', inputSchema: { type: 'object', properties: {} } },
  ];
  const listed = () =>
    mode === 'odd-names'
      ? oddTools
      : mode === 'colliding'
        ? collidingTools
        : [...baseTools, ...extraTools];
  const server = new Server(
    { name: `fault-${mode}`, version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    log(`list ${request.params?.cursor ?? ''}`.trim());
    const all = listed();
    if (mode !== 'paginated') return { tools: all };
    const start = Number(request.params?.cursor ?? 0);
    const page = all.slice(start, start + 2);
    const next = start + 2 < all.length ? String(start + 2) : undefined;
    return next === undefined ? { tools: page } : { tools: page, nextCursor: next };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    log(`call ${name}`);
    extra.signal.addEventListener('abort', () => log(`cancelled ${name}`));
    if (mode === 'odd-names' || mode === 'colliding') {
      return { content: [{ type: 'text', text: `called ${name}` }] };
    }
    if (mode === 'garbage') {
      process.stdout.write('this is not json\n');
      process.stdout.write('{"half": \n');
      process.stdout.write(`${'x'.repeat(10_000_000)}\n`);
      process.stdout.write('[1,2,3]\n');
    }
    if (name === 'hang' || mode === 'hang') return new Promise(() => {});
    if (name === 'echo')
      return { content: [{ type: 'text', text: String(request.params.arguments?.message ?? '') }] };
    if (name === 'crash') {
      // Exit once the line is in the pipe: a write to a full pipe may be queued (seen on Node 22
      // with a slow reader), and process.exit() drops what is queued.
      process.stderr.write('panic: simulated crash in the middle of a call\n', () =>
        setTimeout(() => process.exit(3), 20),
      );
      return new Promise(() => {});
    }
    if (name === 'flood') {
      process.stdout.write(`${'y'.repeat(11 * 1024 * 1024)}\n`);
      return new Promise(() => {});
    }
    if (name === 'env') return { content: [{ type: 'text', text: JSON.stringify(process.env) }] };
    if (name === 'add-tool') {
      extraTools.push({
        name: `added-${extraTools.length + 1}`,
        description: 'Added at run time',
        inputSchema: { type: 'object', properties: {} },
      });
      await server.sendToolListChanged();
      return { content: [{ type: 'text', text: 'added' }] };
    }
    if (name === 'close-stdin') {
      setTimeout(() => {
        process.stdin.destroy();
        closeSync(0);
        setInterval(() => {}, 1000); // stays up, deaf
      }, 20);
      return { content: [{ type: 'text', text: 'closing stdin' }] };
    }
    if (name === 'steps') {
      const token = request.params._meta?.progressToken;
      for (let step = 1; step <= 3; step++) {
        if (token === undefined) continue;
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: step, total: 3, message: `step ${step}` },
        });
      }
      return { content: [{ type: 'text', text: 'done' }] };
    }
    if (name === 'media') {
      return {
        content: [
          { type: 'text', text: 'a beep' },
          { type: 'audio', data: 'UklGRiQAAABXQVZF', mimeType: 'audio/wav' },
          {
            type: 'resource',
            resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'notes' },
          },
        ],
      };
    }
    if (name === 'structured-image') {
      return {
        structuredContent: { width: 1, height: 1 },
        content: [
          { type: 'text', text: '{"width":1,"height":1}' },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        ],
      };
    }
    if (name === 'fail')
      return { isError: true, content: [{ type: 'text', text: 'disk quota exceeded' }] };
    return { isError: true, content: [{ type: 'text', text: `Unknown tool: ${name}` }] };
  });
  await server.connect(new StdioServerTransport());
  if (mode === 'ignore-sigterm') {
    process.stdin.on('end', () => process.stderr.write('stdin closed, staying up\n'));
  }
}
