import { isTracerProviderRegistered, optionalImport } from '@agcore/tools-core';
import type * as Otel from '@opentelemetry/api';

const otel = optionalImport<typeof Otel>(() => import('@opentelemetry/api'));

const traceparentPattern = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/**
 * Runs `call` as a continuation of the caller's trace: with a tracer provider registered and a
 * W3C `traceparent` in the request's `_meta`, the remote span is made the active context, so the
 * registry's `execute_tool` span is its child (the registered propagator reads `traceparent` and
 * `tracestate`; without one, `traceparent` is parsed here). Otherwise `call` runs as is, and no
 * OpenTelemetry module is loaded. Never rejects for tracing's sake.
 */
export async function withCallerTrace<T>(
  meta: Readonly<Record<string, unknown>> | undefined,
  call: () => Promise<T>,
): Promise<T> {
  const traceparent = meta?.traceparent;
  if (typeof traceparent !== 'string' || !isTracerProviderRegistered()) return call();
  const api = await otel.load();
  if (api === undefined) return call();
  let parent: Otel.Context;
  try {
    const carrier: Record<string, string> = { traceparent };
    if (typeof meta?.tracestate === 'string') carrier.tracestate = meta.tracestate;
    parent = api.propagation.extract(api.ROOT_CONTEXT, carrier);
    if (api.trace.getSpanContext(parent) === undefined) {
      const match = traceparentPattern.exec(traceparent);
      if (match?.[2] === undefined || match[3] === undefined || match[4] === undefined)
        return call();
      parent = api.trace.setSpanContext(api.ROOT_CONTEXT, {
        traceId: match[2],
        spanId: match[3],
        traceFlags: Number.parseInt(match[4], 16) & 1,
        isRemote: true,
      });
    }
  } catch {
    return call();
  }
  return api.context.with(parent, call);
}
