import {
  activeOtelContext,
  getOtelSpan,
  injectOtelContext,
  isOtelSpanContextValid,
  isTracerProviderRegistered,
} from '@agcore/tools-core';

/*
 * The trace context of a call comes from tools-core's view of what the application registered
 * with `@opentelemetry/api` (its context manager and propagator): the optional peer is never
 * imported, so a bundler never has to resolve it.
 */

/** The `_meta` keys the MCP specification reserves for trace context (SEP-414). */
const traceKeys = ['traceparent', 'tracestate', 'baggage'] as const;

/**
 * The trace context of the active span, for a request's `params._meta` (SEP-414, and the
 * OpenTelemetry MCP conventions): what the registered propagator writes of `traceparent`,
 * `tracestate` and `baggage`, or, with no propagator registered, the W3C `traceparent` and
 * `tracestate` of the active span. `undefined` when nothing is traced. Never throws.
 */
export function traceMeta(): Record<string, string> | undefined {
  if (!isTracerProviderRegistered()) return undefined;
  try {
    const active = activeOtelContext();
    const span = getOtelSpan(active);
    if (span === undefined) return undefined;
    const context = span.spanContext();
    if (!isOtelSpanContextValid(context)) return undefined;
    const carrier: Record<string, string> = {};
    injectOtelContext(active, carrier);
    const meta: Record<string, string> = {};
    for (const key of traceKeys) {
      const value: unknown = carrier[key];
      if (typeof value === 'string' && value !== '') meta[key] = value;
    }
    if (meta.traceparent === undefined) {
      const flags = (context.traceFlags & 0xff).toString(16).padStart(2, '0');
      meta.traceparent = `00-${context.traceId}-${context.spanId}-${flags}`;
      const state = context.traceState?.serialize();
      if (state !== undefined && state !== '') meta.tracestate = state;
    }
    return meta;
  } catch {
    // A propagator or context manager that throws costs the trace context, never the call.
    return undefined;
  }
}
