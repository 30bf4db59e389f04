import {
  activeOtelContext,
  boundAttribute,
  defaultMaxAttributeBytes,
  describeThrown,
  getOtelTracer,
  type OtelAttributes,
  type OtelContext,
  type OtelSpan,
  OtelSpanKind,
  OtelSpanStatusCode,
  setOtelSpan,
  toJsonPreview,
  withOtelContext,
} from '@agcore/tools-core';
import type { InvocationRequest, RegistryView, ToolTracingOptions } from './options.js';
import type { ToolInvocation } from './tool-invocation.js';

/** The smallest `maxAttributeBytes`: room for the marker and some of the text. */
const minAttributeBytes = 128;

/**
 * The registry's span options, read once: `undefined` for `tracing: false`, else a frozen copy
 * with `maxAttributeBytes` resolved. Throws a `TypeError` naming `tracing.maxAttributeBytes`
 * when it is not an integer of at least 128.
 */
export function resolveTracing(
  tracing: false | ToolTracingOptions | undefined,
): ToolTracingOptions | undefined {
  if (tracing === false) return undefined;
  const given = tracing?.maxAttributeBytes;
  if (given !== undefined && !(Number.isInteger(given) && given >= minAttributeBytes)) {
    throw new TypeError(
      `ToolRegistry: tracing.maxAttributeBytes must be an integer of at least ${minAttributeBytes} (UTF-8 bytes of one span attribute), got ${describeThrown(given)}. Leave it out for the default of ${defaultMaxAttributeBytes}.`,
    );
  }
  return Object.freeze({
    recordContent: tracing?.recordContent === true,
    maxAttributeBytes: given ?? defaultMaxAttributeBytes,
  });
}

/** How much of a value a span attribute holds (`recordContent`), before `maxAttributeBytes`. */
const contentLimits = { maxStringLength: 4096, maxItems: 100, maxValues: 1000 };

/** The `execute_tool` span of one call (GenAI semantic conventions). */
export interface ToolSpan {
  /** The span's trace id: what the tool gets as `context.traceId`. */
  readonly traceId: string;
  /** Runs `body` with the span active (its children, an MCP call's `traceparent`). */
  run<T>(body: () => T): T;
  /** Records the outcome and ends the span. Never throws. */
  end(invocation: ToolInvocation): void;
}

/**
 * Starts the span of a call, as a child of the active span: `execute_tool {name}`, kind
 * INTERNAL, with `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`,
 * `gen_ai.tool.type`, `gen_ai.tool.description` and `gen_ai.conversation.id`. `undefined`
 * when no tracer provider is registered, or the tracer throws (the call then runs untraced).
 * Never throws.
 */
export function startToolSpan(
  registry: RegistryView,
  request: InvocationRequest,
): ToolSpan | undefined {
  try {
    const tracer = getOtelTracer('@agcore/tools-registry');
    if (tracer === undefined) return undefined;
    const limit = registry.tracing?.maxAttributeBytes;
    const bound = (text: string): string => boundAttribute(text, limit);
    const name = typeof request.name === 'string' ? request.name : describeThrown(request.name);
    const attributes: OtelAttributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': bound(name),
      'gen_ai.tool.type': 'function',
      'gen_ai.conversation.id': bound(
        String(request.options.context?.sessionId ?? registry.sessionId),
      ),
    };
    if (request.callId !== undefined) {
      attributes['gen_ai.tool.call.id'] = bound(String(request.callId));
    }
    const description = registry.entries.get(name)?.tool.description;
    if (typeof description === 'string') {
      // Text an MCP server chooses: 1 MB has been seen.
      attributes['gen_ai.tool.description'] = bound(description);
    }
    const parent = activeOtelContext();
    const span = tracer.startSpan(
      bound(`execute_tool ${name}`),
      { kind: OtelSpanKind.INTERNAL, attributes },
      parent,
    );
    return new ActiveToolSpan(span, setOtelSpan(parent, span), registry.tracing);
  } catch {
    return undefined;
  }
}

class ActiveToolSpan implements ToolSpan {
  readonly traceId: string;

  constructor(
    private readonly span: OtelSpan,
    private readonly context: OtelContext,
    private readonly options: ToolTracingOptions | undefined,
  ) {
    this.traceId = span.spanContext().traceId;
  }

  run<T>(body: () => T): T {
    let ran = false;
    let result: T | undefined;
    const wrapped = (): T => {
      ran = true;
      result = body();
      return result;
    };
    try {
      return withOtelContext(this.context, wrapped);
    } catch {
      // A context manager that throws must not cost the call: run it (once) without.
      if (ran) return result as T;
      return body();
    }
  }

  end(invocation: ToolInvocation): void {
    try {
      const { span } = this;
      const { output } = invocation;
      const limit = this.options?.maxAttributeBytes;
      if (this.options?.recordContent === true) {
        span.setAttribute(
          'gen_ai.tool.call.arguments',
          boundAttribute(JSON.stringify(toJsonPreview(invocation.input, contentLimits)), limit),
        );
        if (output.ok) {
          span.setAttribute(
            'gen_ai.tool.call.result',
            boundAttribute(JSON.stringify(toJsonPreview(output.value, contentLimits)), limit),
          );
        }
      }
      if (!output.ok && output.awaitingInput !== undefined) {
        // A question to a person is the call's own outcome, not an error.
        span.setAttribute('agcore.tool.awaiting_input', true);
      } else if (!output.ok) {
        span.setAttribute('error.type', boundAttribute(String(output.error.code), limit));
        span.setStatus({
          code: OtelSpanStatusCode.ERROR,
          message: boundAttribute(output.error.message, limit),
        });
      }
      span.end();
    } catch {
      // A span processor that throws must not change the call's outcome.
    }
  }
}
