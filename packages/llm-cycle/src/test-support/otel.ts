import { context, propagation, trace } from '@opentelemetry/api';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/** The real OpenTelemetry SDK, registered globally, with spans kept in memory. */
export interface TestTracing {
  readonly exporter: InMemorySpanExporter;
  readonly provider: NodeTracerProvider;
  /** The finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** Unregisters everything (the API's globals are shared by every test of the process). */
  stop(): Promise<void>;
}

/** Registers a `NodeTracerProvider` (AsyncLocalStorage context, W3C propagator) with an in-memory exporter. */
export function startTestTracing(extra: readonly SpanProcessor[] = []): TestTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter), ...extra],
  });
  provider.register();
  return {
    exporter,
    provider,
    spans: () => exporter.getFinishedSpans(),
    async stop() {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** The parent span id of a finished span (`undefined` for a root). */
export function parentOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
