import {
  activeOtelContext,
  boundAttribute,
  defaultMaxAttributeBytes,
  describeThrown,
  getOtelTracer,
  isTracerProviderRegistered,
  type OtelAttributes,
  type OtelAttributeValue,
  type OtelContext,
  type OtelSpan,
  OtelSpanKind,
  OtelSpanStatusCode,
  type OtelTracer,
  setOtelSpan,
  withOtelContext,
} from '@agcore/tools-core';
import type { ChatResponse, Usage } from '../chat-provider.js';
import { LlmError } from '../llm-error.js';
import { type ModelCall, requestStreamed, requestWhole } from '../model-request.js';
import type { StreamEvent } from '../stream-events.js';
import { inputMessages, outputMessages, systemInstructions } from './trace-content.js';

/** Options of `LlmCycle`'s OpenTelemetry spans (`LlmCycleOptions.tracing`). */
export interface LlmTracingOptions {
  /**
   * Record message contents on the `chat` spans (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.system_instructions`); default `false`: they may hold
   * personal data.
   */
  readonly recordContent?: boolean;
  /** `gen_ai.agent.name`, and the submit span is named `invoke_agent {agentName}`. */
  readonly agentName?: string;
  /** `gen_ai.provider.name` (`openai`, `deepseek`, `groq`, ...); default the provider's own `providerName` (`anthropic` for `createAnthropicProvider`), else `openai`, the wire format spoken. */
  readonly providerName?: string;
  /**
   * The most UTF-8 bytes of one string attribute (and of a span name, and an error's status
   * message), default 16 KiB (`defaultMaxAttributeBytes` of `@agcore/tools-core`); a longer
   * one is cut with the marker of a cut tool result, `…[truncated: N of M bytes cut]`. A
   * message attribute cut so no longer parses as JSON: the marker says so. A value that is not
   * a positive number means the default.
   */
  readonly maxAttributeBytes?: number;
}

/** What a submit's trace needs of the cycle. */
export interface TraceSettings {
  readonly tracing: LlmTracingOptions | undefined;
  readonly model: string;
  readonly sessionId: string;
  readonly parameters: Readonly<Record<string, unknown>> | undefined;
}

/** Whether submits get spans: tracing not turned off and a tracer provider registered. */
export function wantsSpans(tracing: LlmTracingOptions | undefined): boolean {
  return tracing !== undefined && isTracerProviderRegistered();
}

/** Request parameters recorded as `gen_ai.request.*` (numbers only, as the conventions name them). */
const requestAttributes: readonly (readonly [string, string])[] = [
  ['temperature', 'gen_ai.request.temperature'],
  ['top_p', 'gen_ai.request.top_p'],
  ['max_tokens', 'gen_ai.request.max_tokens'],
  ['max_completion_tokens', 'gen_ai.request.max_tokens'],
  ['frequency_penalty', 'gen_ai.request.frequency_penalty'],
  ['presence_penalty', 'gen_ai.request.presence_penalty'],
  ['seed', 'gen_ai.request.seed'],
];

/**
 * The spans of one submit (GenAI semantic conventions): `invoke_agent` (kind INTERNAL) for
 * the whole submit, a `chat {model}` child (kind CLIENT) per model request (its retries
 * included), and the context under which the tool calls run, so the registry's
 * `execute_tool` spans are children of `invoke_agent`. Tracing never changes an outcome: a
 * tracer that throws loses spans, not calls.
 */
export class SubmitTrace {
  /** The trace id: what the tools get as `context.traceId`. */
  readonly traceId: string;
  readonly #tracer: OtelTracer;
  readonly #span: OtelSpan;
  readonly #context: OtelContext;
  readonly #settings: TraceSettings;
  readonly #maxBytes: number;
  #inputTokens = 0;
  #outputTokens = 0;
  #usageSeen = false;

  private constructor(tracer: OtelTracer, span: OtelSpan, settings: TraceSettings) {
    this.#tracer = tracer;
    this.#span = span;
    this.#context = setOtelSpan(activeOtelContext(), span);
    this.#settings = settings;
    this.#maxBytes = maxBytesOf(settings.tracing);
    this.traceId = span.spanContext().traceId;
  }

  /** Starts the `invoke_agent` span, child of the active span; `undefined` when no tracer provider is registered or the tracer throws. */
  static start(settings: TraceSettings): SubmitTrace | undefined {
    try {
      const tracer = getOtelTracer('@agcore/llm-cycle');
      if (tracer === undefined) return undefined;
      const maxBytes = maxBytesOf(settings.tracing);
      const agentName = settings.tracing?.agentName;
      const attributes: OtelAttributes = {
        ...baseAttributes(settings, 'invoke_agent', maxBytes),
        ...(agentName === undefined
          ? {}
          : { 'gen_ai.agent.name': boundAttribute(agentName, maxBytes) }),
      };
      const span = tracer.startSpan(
        agentName === undefined
          ? 'invoke_agent'
          : boundAttribute(`invoke_agent ${agentName}`, maxBytes),
        { kind: OtelSpanKind.INTERNAL, attributes },
        activeOtelContext(),
      );
      return new SubmitTrace(tracer, span, settings);
    } catch {
      return undefined;
    }
  }

  /** Runs `body` with the submit's span active (what tool calls run under). */
  readonly runInContext = <T>(body: () => T): T => {
    let ran = false;
    let result: T | undefined;
    try {
      return withOtelContext(this.#context, () => {
        ran = true;
        result = body();
        return result;
      });
    } catch {
      if (ran) return result as T;
      return body();
    }
  };

  /** A model request, not streamed, in its `chat` span. @throws what the request throws */
  async whole(call: ModelCall): Promise<ChatResponse> {
    const span = this.#startChat(call);
    let response: ChatResponse;
    try {
      response = await requestWhole(call);
    } catch (error) {
      this.#endChat(span, undefined, error);
      throw error;
    }
    this.#endChat(span, response, undefined);
    return response;
  }

  /** A model request, streamed, in its `chat` span. @throws what the request throws */
  async *streamed(
    call: ModelCall,
  ): AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined> {
    const span = this.#startChat(call);
    let ended = false;
    try {
      const response = yield* requestStreamed(call);
      ended = true;
      this.#endChat(span, response, undefined);
      return response;
    } catch (error) {
      ended = true;
      this.#endChat(span, undefined, error);
      throw error;
    } finally {
      // The consumer stopped iterating (`break`): the request was cancelled.
      if (!ended)
        this.#endChat(span, undefined, new LlmError('cancelled', 'The stream consumer stopped.'));
    }
  }

  /** Sets an attribute of the submit's span (a pause, a resume), strings bounded. Never throws. */
  note(name: string, value: OtelAttributeValue): void {
    try {
      this.#span.setAttribute(name, this.#bounded(value));
    } catch {
      // As in `end`: spans are lost, never calls.
    }
  }

  /** Ends the submit's span: its token totals, and the error the submit threw, if any. Never throws. */
  end(error: unknown): void {
    try {
      const span = this.#span;
      if (this.#usageSeen) {
        span.setAttribute('gen_ai.usage.input_tokens', this.#inputTokens);
        span.setAttribute('gen_ai.usage.output_tokens', this.#outputTokens);
      }
      if (error !== undefined) this.#recordError(span, error);
      span.end();
    } catch {
      // A span processor that throws must not change the submit's outcome.
    }
  }

  #startChat(call: ModelCall): OtelSpan | undefined {
    try {
      const { request } = call;
      const maxBytes = this.#maxBytes;
      const attributes: OtelAttributes = {
        ...baseAttributes(this.#settings, 'chat', maxBytes),
        'gen_ai.request.model': boundAttribute(request.model, maxBytes),
      };
      for (const [name, attribute] of requestAttributes) {
        const value = request.parameters?.[name];
        if (typeof value === 'number') attributes[attribute] = value;
      }
      if (this.#settings.tracing?.recordContent === true) {
        attributes['gen_ai.input.messages'] = inputMessages(request.messages, maxBytes);
        const system = systemInstructions(request.messages, maxBytes);
        if (system !== undefined) attributes['gen_ai.system_instructions'] = system;
      }
      return this.#tracer.startSpan(
        boundAttribute(`chat ${request.model}`, maxBytes),
        { kind: OtelSpanKind.CLIENT, attributes },
        this.#context,
      );
    } catch {
      return undefined;
    }
  }

  #endChat(span: OtelSpan | undefined, response: ChatResponse | undefined, error: unknown): void {
    if (span === undefined) return;
    try {
      if (response !== undefined) {
        const bound = (text: string) => boundAttribute(text, this.#maxBytes);
        span.setAttribute('gen_ai.response.finish_reasons', [bound(response.finishReason)]);
        if (response.id !== '') span.setAttribute('gen_ai.response.id', bound(response.id));
        if (response.model !== '')
          span.setAttribute('gen_ai.response.model', bound(response.model));
        if (response.usage !== undefined) this.#recordUsage(span, response.usage);
        if (this.#settings.tracing?.recordContent === true)
          span.setAttribute('gen_ai.output.messages', outputMessages(response, this.#maxBytes));
      } else {
        this.#recordError(span, error);
      }
      span.end();
    } catch {
      // As in `end`: spans are lost, never calls.
    }
  }

  #recordUsage(span: OtelSpan, usage: Usage): void {
    span.setAttribute('gen_ai.usage.input_tokens', usage.promptTokens);
    span.setAttribute('gen_ai.usage.output_tokens', usage.completionTokens);
    this.#usageSeen = true;
    this.#inputTokens += usage.promptTokens;
    this.#outputTokens += usage.completionTokens;
  }

  #recordError(span: OtelSpan, error: unknown): void {
    const code = LlmError.isInstance(error) ? error.code : '_OTHER';
    span.setAttribute('error.type', code);
    const message = boundAttribute(describeThrown(error), this.#maxBytes);
    span.setStatus({ code: OtelSpanStatusCode.ERROR, message });
  }

  #bounded(value: OtelAttributeValue): OtelAttributeValue {
    if (typeof value === 'string') return boundAttribute(value, this.#maxBytes);
    if (!Array.isArray(value) || !value.some((item) => typeof item === 'string')) return value;
    return (value as readonly unknown[]).map((item) =>
      typeof item === 'string' ? boundAttribute(item, this.#maxBytes) : item,
    ) as OtelAttributeValue;
  }
}

function baseAttributes(
  settings: TraceSettings,
  operation: string,
  maxBytes: number,
): OtelAttributes {
  return {
    'gen_ai.operation.name': operation,
    'gen_ai.provider.name': boundAttribute(settings.tracing?.providerName ?? 'openai', maxBytes),
    'gen_ai.request.model': boundAttribute(settings.model, maxBytes),
    'gen_ai.conversation.id': boundAttribute(settings.sessionId, maxBytes),
  };
}

/** The bound of one attribute: the option when it is a positive number, else the default. */
function maxBytesOf(tracing: LlmTracingOptions | undefined): number {
  const value = tracing?.maxAttributeBytes;
  return typeof value === 'number' && Number.isFinite(value) && value > 0
    ? Math.floor(value)
    : defaultMaxAttributeBytes;
}

/** One model request, not streamed: in a `chat` span when the submit is traced. */
export function wholeRequest(
  call: ModelCall,
  trace: SubmitTrace | undefined,
): Promise<ChatResponse> {
  return trace === undefined ? requestWhole(call) : trace.whole(call);
}

/** One model request, streamed: in a `chat` span when the submit is traced. */
export function streamedRequest(
  call: ModelCall,
  trace: SubmitTrace | undefined,
): AsyncGenerator<readonly StreamEvent[], ChatResponse, undefined> {
  return trace === undefined ? requestStreamed(call) : trace.streamed(call);
}
