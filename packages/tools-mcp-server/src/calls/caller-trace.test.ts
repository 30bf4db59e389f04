import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterEach, expect, it } from 'vitest';
import { serveTools, type ToolServer } from '../index.js';
import { connectV1, connectV2, fixtureRegistry } from '../test-support/fixtures.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

it("continues the caller's trace: the execute_tool span is a child of the traceparent in _meta, on both eras", async () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  cleanups.push(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  const served: ToolServer = serveTools(fixtureRegistry().registry);
  const { url } = await served.listen({ port: 0 });
  cleanups.push(() => served.close());
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const clients = [await connectV1(url), await connectV2(url)];
  for (const [index, client] of clients.entries()) {
    cleanups.push(() => client.close());
    const parentSpanId = `b7ad6b716920333${index}`;
    await client.callTool({
      name: 'echo',
      arguments: { text: 'x' },
      _meta: { traceparent: `00-${traceId}-${parentSpanId}-01` },
    });
    const span = exporter
      .getFinishedSpans()
      .find(
        (item) =>
          item.name === 'execute_tool echo' && item.parentSpanContext?.spanId === parentSpanId,
      );
    expect(span?.spanContext().traceId).toBe(traceId);
  }
});
