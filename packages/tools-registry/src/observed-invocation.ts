import { isTracerProviderRegistered } from '@agcore/tools-core';
import { reportInvocation } from './audit.js';
import type { CallRecord, InvocationRequest, RegistryView, ToolTracingOptions } from './options.js';
import type { ToolInvocation } from './tool-invocation.js';
import { startToolSpan } from './tracing.js';

/** The invocation pipeline, given the call's record. */
type Pipeline = (
  registry: RegistryView,
  request: InvocationRequest,
  record: CallRecord,
) => Promise<ToolInvocation>;

/**
 * Whether calls get an `execute_tool` span: tracing not turned off and a tracer provider
 * registered (checked on every call, without loading anything).
 */
export function wantsSpans(tracing: ToolTracingOptions | undefined): boolean {
  return tracing !== undefined && isTracerProviderRegistered();
}

/**
 * Runs one call through `pipeline` inside its span (when tracing), then hands the settled
 * invocation to the audit hook. Never rejects: neither a throwing tracer nor the hook changes
 * the outcome.
 */
export async function observeInvocation(
  registry: RegistryView,
  request: InvocationRequest,
  pipeline: Pipeline,
): Promise<ToolInvocation> {
  let span: ReturnType<typeof startToolSpan>;
  if (wantsSpans(registry.tracing)) {
    span = startToolSpan(registry, request);
  }
  const record: CallRecord = { entry: undefined, traceId: span?.traceId };
  const invocation =
    span === undefined
      ? await pipeline(registry, request, record)
      : await span.run(() => pipeline(registry, request, record));
  span?.end(invocation);
  reportInvocation(registry, invocation, record.entry);
  return invocation;
}
