// The real OpenTelemetry SDK in a worker process, its finished spans appended to a file as JSON
// lines for the test to read. durable-dbos has no OpenTelemetry dependency of its own (the loop
// finds a registered provider through the API's global), so the SDK is loaded from where
// llm-cycle, which tests against it, has it installed.
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** One finished span as the file holds it. */
export interface SpanLine {
  readonly name: string;
  readonly traceId: string;
  readonly attributes: Readonly<Record<string, unknown>>;
}

interface FinishedSpan {
  readonly name: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  spanContext(): { traceId: string };
}

interface TracerProvider {
  register(): void;
}

type ProviderClass = new (config: {
  spanProcessors: readonly {
    onStart(): void;
    onEnd(span: FinishedSpan): void;
    forceFlush(): Promise<void>;
    shutdown(): Promise<void>;
  }[];
}) => TracerProvider;

/** Registers a `NodeTracerProvider` whose every finished span is appended to `file`. */
export function traceToFile(file: string): void {
  const require = createRequire(import.meta.resolve('@agcore/llm-cycle'));
  const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node') as {
    NodeTracerProvider: ProviderClass;
  };
  const processor = {
    onStart: () => undefined,
    onEnd: (span: FinishedSpan) => {
      const line: SpanLine = {
        name: span.name,
        traceId: span.spanContext().traceId,
        attributes: span.attributes,
      };
      appendFileSync(file, `${JSON.stringify(line)}\n`);
    },
    forceFlush: async () => undefined,
    shutdown: async () => undefined,
  };
  new NodeTracerProvider({ spanProcessors: [processor] }).register();
}
