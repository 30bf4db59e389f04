import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { PlaygroundError } from './playground-error.js';
import type { SpanRecord } from './span-tree.js';

/** OpenTelemetry as the playground runs it: `--trace` keeps the spans, `--otlp` exports them. */
export interface PlaygroundTracing {
  /** The spans kept so far (with `--trace`), as the tree shows them. */
  spans(): SpanRecord[];
  /** Sends what is pending to the collector and unregisters the provider. Never rejects. */
  shutdown(): Promise<string | undefined>;
}

/**
 * The OTLP/HTTP traces URL for `--otlp`: a collector root (`http://localhost:4318`) gets
 * `/v1/traces`, a URL with a path is used as is.
 * @throws {PlaygroundError} for a URL that does not parse or is not http(s).
 */
export function otlpTracesUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PlaygroundError(
      `--otlp ${value}: not a URL. Give the collector's OTLP/HTTP address, e.g. http://localhost:4318.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new PlaygroundError(`--otlp ${value}: use an http:// or https:// URL (OTLP over HTTP).`);
  }
  if (url.pathname === '/' || url.pathname === '') url.pathname = '/v1/traces';
  return url.href;
}

/**
 * Registers a `NodeTracerProvider` (AsyncLocalStorage context, W3C propagation) so that
 * llm-cycle, tools-registry and tools-mcp trace: spans kept in memory when `keep`, exported
 * to `otlpUrl` with the official OTLP/HTTP exporter when given. The SDK is imported here
 * only, so a run without these options never loads it.
 */
export async function startTracing(options: {
  readonly keep: boolean;
  readonly otlpUrl?: string;
}): Promise<PlaygroundTracing> {
  const [base, node] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/sdk-trace-node'),
  ]);
  const memory = options.keep ? new base.InMemorySpanExporter() : undefined;
  const processors: SpanProcessor[] =
    memory === undefined ? [] : [new base.SimpleSpanProcessor(memory)];
  if (options.otlpUrl !== undefined) {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    processors.push(new base.BatchSpanProcessor(new OTLPTraceExporter({ url: options.otlpUrl })));
  }
  const provider = new node.NodeTracerProvider({ spanProcessors: processors });
  provider.register();
  return {
    spans: () => (memory?.getFinishedSpans() ?? []).map(toRecord),
    async shutdown() {
      try {
        await provider.forceFlush();
        await provider.shutdown();
        return undefined;
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
    },
  };
}

function toRecord(span: ReadableSpan): SpanRecord {
  const [startSeconds, startNanos] = span.startTime;
  const [seconds, nanos] = span.duration;
  return {
    name: span.name,
    spanId: span.spanContext().spanId,
    traceId: span.spanContext().traceId,
    parentSpanId: span.parentSpanContext?.spanId,
    startMs: startSeconds * 1000 + startNanos / 1e6,
    durationMs: seconds * 1000 + nanos / 1e6,
    attributes: span.attributes,
    error: span.status.code === 2 ? (span.status.message ?? '') : undefined,
  };
}
