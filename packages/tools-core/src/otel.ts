/**
 * A typed view of what an application registered with `@opentelemetry/api` 1.x, without
 * importing it: the API keeps every registration in one object on `globalThis` (under
 * `Symbol.for('opentelemetry.js.api.1')`: `trace`, `context`, `propagation`, `version`), shared
 * by every copy of the API of that major version. Reading it loads nothing, so a bundler never
 * has to resolve the optional peer and no `.d.ts` names it. The types below are our own,
 * structural subsets of the API's, matched to `@opentelemetry/api` 1.9 (`context/context.js`,
 * `trace/context-utils.js`, `api/propagation.js`).
 */

/** An OpenTelemetry context: an immutable map from symbols to values (the API's `Context`). */
export interface OtelContext {
  /** The value stored under `key`, or `undefined`. */
  getValue(key: symbol): unknown;
  /** A new context that holds `value` under `key` (this one is unchanged). */
  setValue(key: symbol, value: unknown): OtelContext;
  /** A new context without `key` (this one is unchanged). */
  deleteValue(key: symbol): OtelContext;
}

/** A span attribute's value, as the API accepts it (`AttributeValue`). */
export type OtelAttributeValue =
  | string
  | number
  | boolean
  | readonly (string | null | undefined)[]
  | readonly (number | null | undefined)[]
  | readonly (boolean | null | undefined)[];

/** Span attributes (`Attributes`). */
export type OtelAttributes = Record<string, OtelAttributeValue | undefined>;

/** What identifies a span across processes (`SpanContext`). */
export interface OtelSpanContext {
  /** 32 lower-case hex digits. */
  readonly traceId: string;
  /** 16 lower-case hex digits. */
  readonly spanId: string;
  /** The W3C trace flags (bit 0: sampled). */
  readonly traceFlags: number;
  /** The W3C `tracestate`, when there is one. */
  readonly traceState?: {
    /** The `tracestate` header's value. */
    serialize(): string;
  };
}

/** A span's status (`SpanStatus`): a code of `OtelSpanStatusCode` and a message. */
export interface OtelSpanStatus {
  readonly code: number;
  readonly message?: string;
}

/** The part of a span (`Span`) that agcore uses. */
export interface OtelSpan {
  /** The span's identity. */
  spanContext(): OtelSpanContext;
  /** Sets one attribute. */
  setAttribute(key: string, value: OtelAttributeValue): unknown;
  /** Sets the status. */
  setStatus(status: OtelSpanStatus): unknown;
  /** Ends the span. */
  end(): void;
}

/** Options of a new span (`SpanOptions`, in part). */
export interface OtelSpanOptions {
  /** A number of `OtelSpanKind`; the SDK's default is INTERNAL. */
  readonly kind?: number;
  readonly attributes?: OtelAttributes;
  /** A new trace, whatever the context holds. */
  readonly root?: boolean;
}

/** A tracer (`Tracer`, in part). */
export interface OtelTracer {
  /** Starts a span, child of the span of `context` (default: the active context). */
  startSpan(name: string, options?: OtelSpanOptions, context?: OtelContext): OtelSpan;
}

/** The numbers of the API's `SpanKind` enum. */
export const OtelSpanKind = {
  INTERNAL: 0,
  SERVER: 1,
  CLIENT: 2,
  PRODUCER: 3,
  CONSUMER: 4,
} as const;

/** The numbers of the API's `SpanStatusCode` enum. */
export const OtelSpanStatusCode = { UNSET: 0, OK: 1, ERROR: 2 } as const;

interface ContextManager {
  active(): OtelContext;
  with<T>(context: OtelContext, body: () => T): T;
}

interface TracerProvider {
  getTracer(name: string, version?: string): OtelTracer;
}

interface TextMapSetter {
  set(carrier: Record<string, string>, key: string, value: string): void;
}

interface Propagator {
  inject(context: OtelContext, carrier: Record<string, string>, setter: TextMapSetter): void;
}

interface Registrations {
  readonly version?: unknown;
  readonly trace?: TracerProvider;
  readonly context?: ContextManager;
  readonly propagation?: Propagator;
}

const apiGlobalKey = Symbol.for('opentelemetry.js.api.1');

/** The key under which the API keeps a context's span (`createContextKey` is `Symbol.for`). */
const spanKey = Symbol.for('OpenTelemetry Context Key SPAN');

/** The registrations, when they are of API major version 1 (the API's own check, in part). */
function registrations(): Registrations | undefined {
  try {
    const found = (globalThis as { [apiGlobalKey]?: Registrations | null })[apiGlobalKey];
    if (found === undefined || found === null || typeof found !== 'object') return undefined;
    const { version } = found;
    if (typeof version !== 'string' || !/^1\.\d+\.\d+/.test(version)) return undefined;
    return found;
  } catch {
    // A hostile global (a Proxy that throws) counts as nothing registered.
    return undefined;
  }
}

/** The API's `BaseContext`: each change makes a new context with a copy of the map. */
class MapContext implements OtelContext {
  readonly #values: ReadonlyMap<symbol, unknown>;

  constructor(values: ReadonlyMap<symbol, unknown>) {
    this.#values = values;
  }

  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }

  setValue(key: symbol, value: unknown): OtelContext {
    const values = new Map(this.#values);
    values.set(key, value);
    return new MapContext(values);
  }

  deleteValue(key: symbol): OtelContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new MapContext(values);
  }
}

/** The empty context (the API's `ROOT_CONTEXT`): what is active with no context manager. */
export const otelRootContext: OtelContext = new MapContext(new Map());

/**
 * A tracer of the registered tracer provider (`trace.getTracer(name, version)`), or `undefined`
 * when no tracer provider of API 1.x is registered. @throws what the provider throws
 */
export function getOtelTracer(name: string, version?: string): OtelTracer | undefined {
  const provider = registrations()?.trace;
  if (provider === undefined) return undefined;
  return version === undefined ? provider.getTracer(name) : provider.getTracer(name, version);
}

/**
 * The active context (`context.active()`): the registered context manager's, or
 * `otelRootContext` when none is registered. @throws what the context manager throws
 */
export function activeOtelContext(): OtelContext {
  const manager = registrations()?.context;
  return manager === undefined ? otelRootContext : manager.active();
}

/**
 * Runs `body` with `context` active (`context.with`) and returns what it returns; with no
 * context manager registered, just runs it. @throws what `body` or the context manager throws
 */
export function withOtelContext<T>(context: OtelContext, body: () => T): T {
  const manager = registrations()?.context;
  return manager === undefined ? body() : manager.with(context, body);
}

/** The span stored in `context` (`trace.getSpan`), or `undefined`. */
export function getOtelSpan(context: OtelContext): OtelSpan | undefined {
  const span = context.getValue(spanKey);
  return span === undefined || span === null ? undefined : (span as OtelSpan);
}

/** A new context holding `span` as its span (`trace.setSpan`). */
export function setOtelSpan(context: OtelContext, span: OtelSpan): OtelContext {
  return context.setValue(spanKey, span);
}

const hexId = /^[0-9a-fA-F]+$/;

/** Whether a span context has a valid trace id and span id (`trace.isSpanContextValid`). */
export function isOtelSpanContextValid(spanContext: OtelSpanContext): boolean {
  const { traceId, spanId } = spanContext;
  return (
    typeof traceId === 'string' &&
    traceId.length === 32 &&
    hexId.test(traceId) &&
    !/^0+$/.test(traceId) &&
    typeof spanId === 'string' &&
    spanId.length === 16 &&
    hexId.test(spanId) &&
    !/^0+$/.test(spanId)
  );
}

const carrierSetter: TextMapSetter = {
  set(carrier, key, value) {
    carrier[key] = value;
  },
};

/**
 * Writes what the registered propagator writes of `context` (`traceparent`, `tracestate`,
 * `baggage`, ...) into `carrier` (`propagation.inject`); nothing when no propagator is
 * registered. @throws what the propagator throws
 */
export function injectOtelContext(context: OtelContext, carrier: Record<string, string>): void {
  registrations()?.propagation?.inject(context, carrier, carrierSetter);
}
