import { isTracerProviderRegistered, optionalImport } from '@agcore/tools-core';
import type * as Otel from '@opentelemetry/api';

/**
 * `@opentelemetry/api`, imported the first time a call is made while a tracer provider is
 * registered (an optional peer dependency: otherwise it is never loaded).
 */
const otel = optionalImport<typeof Otel>(() => import('@opentelemetry/api'));

/** The `_meta` keys the MCP specification reserves for trace context (SEP-414). */
const traceKeys = ['traceparent', 'tracestate', 'baggage'] as const;

/**
 * When a tracer provider is registered and the API is not loaded yet: the promise of its
 * loading, to wait for before the first call (so that it carries the trace context). Else
 * `undefined`. Never rejects.
 */
export function tracingApiLoading(): Promise<unknown> | undefined {
  if (otel.settled || !isTracerProviderRegistered()) return undefined;
  return otel.load();
}

/**
 * The trace context of the active span, for a request's `params._meta` (SEP-414, and the
 * OpenTelemetry MCP conventions): what the registered propagator writes of `traceparent`,
 * `tracestate` and `baggage`, or, with no propagator registered, the W3C `traceparent` and
 * `tracestate` of the active span. `undefined` when nothing is traced. Never throws.
 */
export function traceMeta(): Record<string, string> | undefined {
  if (!isTracerProviderRegistered()) return undefined;
  const api = otel.module;
  if (api === undefined) return undefined;
  try {
    const active = api.context.active();
    const span = api.trace.getSpan(active);
    if (span === undefined) return undefined;
    const context = span.spanContext();
    if (!api.isSpanContextValid(context)) return undefined;
    const carrier: Record<string, unknown> = {};
    api.propagation.inject(active, carrier);
    const meta: Record<string, string> = {};
    for (const key of traceKeys) {
      const value = carrier[key];
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
