import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  activeOtelContext,
  getOtelSpan,
  getOtelTracer,
  injectOtelContext,
  isOtelSpanContextValid,
  OtelSpanKind,
  OtelSpanStatusCode,
  otelRootContext,
  setOtelSpan,
  withOtelContext,
} from './otel.js';

const key = Symbol.for('opentelemetry.js.api.1');
const global = globalThis as { [key]?: unknown };

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
  delete global[key];
});

/** The real SDK, registered as an application does (AsyncLocalStorage context, W3C propagator). */
function startSdk(): InMemorySpanExporter {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  provider.register();
  stop = async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  };
  return exporter;
}

describe('the OpenTelemetry view without a registration', () => {
  it('has no tracer, the root context as active, runs bodies as they are, injects nothing', () => {
    expect(getOtelTracer('x')).toBeUndefined();
    expect(activeOtelContext()).toBe(otelRootContext);
    expect(withOtelContext(otelRootContext, () => 42)).toBe(42);
    const carrier: Record<string, string> = {};
    injectOtelContext(otelRootContext, carrier);
    expect(carrier).toEqual({});
  });

  it('ignores a registration of another major version and a hostile global', () => {
    global[key] = { version: '2.0.0', trace: { getTracer: () => ({}) } };
    expect(getOtelTracer('x')).toBeUndefined();
    global[key] = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
      },
    );
    expect(getOtelTracer('x')).toBeUndefined();
    expect(activeOtelContext()).toBe(otelRootContext);
  });

  it('keeps contexts immutable, as the API does', () => {
    const span = { spanContext: () => ({ traceId: 'a', spanId: 'b', traceFlags: 1 }) };
    const withSpan = setOtelSpan(otelRootContext, span as never);
    expect(getOtelSpan(withSpan)).toBe(span);
    expect(getOtelSpan(otelRootContext)).toBeUndefined();
    expect(getOtelSpan(withSpan.deleteValue(Symbol.for('OpenTelemetry Context Key SPAN')))).toBe(
      undefined,
    );
  });
});

describe('the OpenTelemetry view over the real SDK', () => {
  it('makes spans whose parent links are those of the context given', () => {
    const exporter = startSdk();
    const tracer = getOtelTracer('@agcore/test', '1.0.0');
    expect(tracer).toBeDefined();
    if (tracer === undefined) return;
    const parent = tracer.startSpan('parent', { kind: OtelSpanKind.SERVER }, activeOtelContext());
    const child = tracer.startSpan(
      'child',
      { kind: OtelSpanKind.CLIENT, attributes: { 'a.b': 'c', n: 3, list: ['x', 'y'] } },
      setOtelSpan(activeOtelContext(), parent),
    );
    child.setStatus({ code: OtelSpanStatusCode.ERROR, message: 'broke' });
    child.end();
    parent.end();
    const [childSpan, parentSpan] = exporter.getFinishedSpans();
    expect(parentSpan?.name).toBe('parent');
    expect(parentSpan?.parentSpanContext).toBeUndefined();
    expect(parentSpan?.kind).toBe(SpanKind.SERVER);
    expect(childSpan?.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
    expect(childSpan?.spanContext().traceId).toBe(parent.spanContext().traceId);
    expect(childSpan?.kind).toBe(SpanKind.CLIENT);
    expect(childSpan?.attributes).toEqual({ 'a.b': 'c', n: 3, list: ['x', 'y'] });
    expect(childSpan?.status).toEqual({ code: SpanStatusCode.ERROR, message: 'broke' });
  });

  it('makes a span in our own root context a root, and its children its children', () => {
    const exporter = startSdk();
    const tracer = getOtelTracer('@agcore/test');
    if (tracer === undefined) throw new Error('no tracer');
    const root = tracer.startSpan('root', {}, otelRootContext);
    tracer.startSpan('leaf', {}, setOtelSpan(otelRootContext, root)).end();
    root.end();
    const [leaf, rootSpan] = exporter.getFinishedSpans();
    expect(rootSpan?.parentSpanContext).toBeUndefined();
    expect(leaf?.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
  });

  it('makes the span active inside withOtelContext, across awaits, for the API and the view', async () => {
    const exporter = startSdk();
    const tracer = getOtelTracer('@agcore/test');
    if (tracer === undefined) throw new Error('no tracer');
    const outer = tracer.startSpan('outer');
    const seen = await withOtelContext(setOtelSpan(activeOtelContext(), outer), async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      // Work done by the application's own instrumentation, through the API.
      trace.getTracer('app').startActiveSpan('inner', (span) => span.end());
      return {
        api: trace.getActiveSpan()?.spanContext().spanId,
        view: getOtelSpan(activeOtelContext())?.spanContext().spanId,
      };
    });
    outer.end();
    expect(seen).toEqual({ api: outer.spanContext().spanId, view: outer.spanContext().spanId });
    expect(trace.getActiveSpan()).toBeUndefined();
    const inner = exporter.getFinishedSpans().find((span) => span.name === 'inner');
    expect(inner?.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
  });

  it('sees the span the application made active through the API', () => {
    startSdk();
    trace.getTracer('app').startActiveSpan('caller', (caller) => {
      expect(getOtelSpan(activeOtelContext())?.spanContext().spanId).toBe(
        caller.spanContext().spanId,
      );
      caller.end();
    });
  });

  it('has the registered propagator write traceparent (W3C) for the span of a context', () => {
    startSdk();
    const tracer = getOtelTracer('@agcore/test');
    if (tracer === undefined) throw new Error('no tracer');
    const span = tracer.startSpan('call');
    const carrier: Record<string, string> = {};
    injectOtelContext(setOtelSpan(otelRootContext, span), carrier);
    const { traceId, spanId } = span.spanContext();
    expect(carrier.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    span.end();
  });

  it('has the numbers of the API enums and its span context validity', () => {
    expect(OtelSpanKind).toEqual({
      INTERNAL: SpanKind.INTERNAL,
      SERVER: SpanKind.SERVER,
      CLIENT: SpanKind.CLIENT,
      PRODUCER: SpanKind.PRODUCER,
      CONSUMER: SpanKind.CONSUMER,
    });
    expect(OtelSpanStatusCode).toEqual({
      UNSET: SpanStatusCode.UNSET,
      OK: SpanStatusCode.OK,
      ERROR: SpanStatusCode.ERROR,
    });
    const cases = [
      { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 },
      { traceId: 'A'.repeat(32), spanId: 'B'.repeat(16), traceFlags: 1 },
      { traceId: '0'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 },
      { traceId: 'a'.repeat(32), spanId: '0'.repeat(16), traceFlags: 1 },
      { traceId: 'g'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 },
      { traceId: 'a'.repeat(31), spanId: 'b'.repeat(16), traceFlags: 1 },
    ];
    for (const spanContext of cases)
      expect(isOtelSpanContextValid(spanContext)).toBe(trace.isSpanContextValid(spanContext));
  });
});
