import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PermissionChecker } from '@agcore/tools-permission';
import { ToolRegistry } from '@agcore/tools-registry';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { propagation, ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpClient } from '../index.js';
import { parentOf, startTestTracing, type TestTracing } from '../test-support/otel.js';
import { serverEntries, tempDir } from '../test-support/servers.js';

const tap = fileURLToPath(new URL('../test-support/stdin-tap.mjs', import.meta.url));

/** A real SDK server over Streamable HTTP whose tool records `_meta` and joins the caller's trace. */
async function startTracedServer(): Promise<{ url: string; metas: unknown[]; server: Server }> {
  const metas: unknown[] = [];
  const server = createServer((request, response) => {
    const mcp = new McpServer({ name: 'traced', version: '1.0.0' });
    mcp.registerTool(
      'lookup',
      { description: 'Looks a key up', inputSchema: { key: z.string() } },
      async ({ key }, extra) => {
        metas.push(extra._meta);
        const parent = propagation.extract(ROOT_CONTEXT, extra._meta ?? {});
        trace
          .getTracer('server')
          .startSpan('server lookup', { kind: SpanKind.SERVER }, parent)
          .end();
        return { content: [{ type: 'text', text: `value of ${key}` }] };
      },
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    void mcp.connect(transport).then(() => transport.handleRequest(request, response));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/mcp`, metas, server };
}

function only(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  expect(found, name).toHaveLength(1);
  return found[0] as ReadableSpan;
}

function traceparentOf(span: ReadableSpan): string {
  const { traceId, spanId } = span.spanContext();
  return `00-${traceId}-${spanId}-01`;
}

let tracing: TestTracing | undefined;
afterEach(async () => {
  await tracing?.stop();
  tracing = undefined;
});

describe("trace context in _meta (SEP-414): a real SDK server joins the caller's trace", () => {
  let traced: Awaited<ReturnType<typeof startTracedServer>>;
  let client: McpClient;
  beforeAll(async () => {
    traced = await startTracedServer();
    client = new McpClient('traced', { type: 'streamable-http', url: traced.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.close();
    traced.server.close();
  });

  it('a registry call: the server span is a child of execute_tool, one trace', async () => {
    tracing = startTestTracing();
    const registry = new ToolRegistry({ permissionChecker: PermissionChecker.allowAll() });
    registry.registerAll(await client.tools());
    await trace.getTracer('app').startActiveSpan('caller', async (span) => {
      const invocation = await registry.invoke('lookup', { key: 'k1' });
      expect(invocation.output).toEqual({ ok: true, value: 'value of k1' });
      span.end();
    });
    const spans = tracing.spans();
    const tool = only(spans, 'execute_tool lookup');
    const server = only(spans, 'server lookup');
    expect(parentOf(tool)).toBe(only(spans, 'caller').spanContext().spanId);
    expect(parentOf(server)).toBe(tool.spanContext().spanId);
    expect(server.spanContext().traceId).toBe(tool.spanContext().traceId);
    expect(traced.metas.at(-1)).toMatchObject({ traceparent: traceparentOf(tool) });
  });

  it('a direct callTool carries the active span; no span, no _meta', async () => {
    tracing = startTestTracing();
    await trace.getTracer('app').startActiveSpan('direct', async (span) => {
      await client.callTool('lookup', { key: 'k2' });
      span.end();
    });
    expect(traced.metas.at(-1)).toEqual({
      traceparent: traceparentOf(only(tracing.spans(), 'direct')),
    });
    await client.callTool('lookup', { key: 'k3' }); // a provider, but no active span
    expect(traced.metas.at(-1)).toBeUndefined();
    await tracing.stop();
    tracing = undefined;
    await client.callTool('lookup', { key: 'k4' }); // no provider at all
    expect(traced.metas.at(-1)).toBeUndefined();
  });
});

describe('trace context in _meta: what server-everything receives on its stdin', () => {
  let dir: { path: string; remove(): Promise<void> };
  let log: string;
  let client: McpClient;
  beforeAll(async () => {
    dir = await tempDir('tap');
    log = join(dir.path, 'stdin.jsonl');
    writeFileSync(log, '');
    client = new McpClient('everything', {
      type: 'stdio',
      command: process.execPath,
      args: [tap, log, process.execPath, serverEntries.everything, 'stdio'],
    });
    await client.connect();
  });
  afterAll(async () => {
    await client.close();
    await dir.remove();
  });

  function toolCalls(): { params: { name: string; _meta?: Record<string, unknown> } }[] {
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line.includes('"tools/call"'))
      .map((line) => JSON.parse(line));
  }

  it('gets the traceparent of the execute_tool span, beside the progress token', async () => {
    tracing = startTestTracing();
    const registry = new ToolRegistry({ permissionChecker: PermissionChecker.allowAll() });
    registry.registerAll(await client.tools({ prefix: true }));
    const echo = await registry.invoke('everything__echo', { message: 'hi' });
    expect(echo.output.ok).toBe(true);
    const progress: number[] = [];
    const long = await registry.invoke(
      'everything__trigger-long-running-operation',
      { duration: 0.2, steps: 2 },
      { context: { progress: (update) => progress.push(update.progress) } },
    );
    expect(long.output.ok).toBe(true);
    expect(progress).toEqual([1, 2]);
    const spans = tracing.spans();
    const [echoCall, longCall] = toolCalls();
    expect(echoCall?.params._meta).toEqual({
      traceparent: traceparentOf(only(spans, 'execute_tool everything__echo')),
    });
    expect(longCall?.params._meta).toEqual({
      progressToken: expect.anything(),
      traceparent: traceparentOf(
        only(spans, 'execute_tool everything__trigger-long-running-operation'),
      ),
    });
  });
});
