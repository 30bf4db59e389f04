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

import { appendFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const log = (line) => {
  if (process.env.FAULT_LOG) appendFileSync(process.env.FAULT_LOG, `${line}\n`);
};
log(`start ${process.pid}`);

const mode = process.argv[2] ?? 'exit-mid-call';

if (mode === 'startup-exit') {
  process.stderr.write('fatal: configuration file /nonexistent/config.toml not found\n');
  process.exit(7);
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
  ];
  const server = new Server(
    { name: `fault-${mode}`, version: '1.0.0' },
    { capabilities: { tools: { listChanged: true } } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const all = [...baseTools, ...extraTools];
    if (mode !== 'paginated') return { tools: all };
    const start = Number(request.params?.cursor ?? 0);
    const page = all.slice(start, start + 2);
    const next = start + 2 < all.length ? String(start + 2) : undefined;
    return next === undefined ? { tools: page } : { tools: page, nextCursor: next };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const name = request.params.name;
    log(`call ${name}`);
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
      process.stderr.write('panic: simulated crash in the middle of a call\n');
      setTimeout(() => process.exit(3), 20);
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
    if (name === 'fail')
      return { isError: true, content: [{ type: 'text', text: 'disk quota exceeded' }] };
    return { isError: true, content: [{ type: 'text', text: `Unknown tool: ${name}` }] };
  });
  await server.connect(new StdioServerTransport());
  if (mode === 'ignore-sigterm') {
    process.stdin.on('end', () => process.stderr.write('stdin closed, staying up\n'));
  }
}
