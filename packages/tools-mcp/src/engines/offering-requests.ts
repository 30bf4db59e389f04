import * as z from 'zod/v4';
import type { OfferingMethod } from './engine.js';

/** Any JSON object: the client checks each listed item on its own, not the SDK all at once. */
const LooseResult = z.looseObject({});

/** The generic request of an SDK `Client` (v1 and v2 alike: a zod v4 schema is a standard one). */
interface RequestingSdk {
  request(
    request: { method: string; params: Record<string, unknown> },
    schema: typeof LooseResult,
    options: { timeout: number },
  ): Promise<unknown>;
}

/**
 * Sends one resources or prompts request through an SDK `Client` (v1 or v2), the answer
 * unchecked by the SDK: one malformed resource must not fail the whole list.
 *
 * @throws what the SDK throws (the connection's `failure` maps it).
 */
export function sendOffering(
  client: unknown,
  method: OfferingMethod,
  params: Record<string, unknown>,
  timeoutMs: number,
): Promise<unknown> {
  return (client as RequestingSdk).request({ method, params }, LooseResult, { timeout: timeoutMs });
}

/** The `uri` of a `notifications/resources/updated`, if it has one. Never throws. */
export function updatedUri(notification: unknown): string | undefined {
  const params = (notification as { params?: { uri?: unknown } } | undefined)?.params;
  return typeof params?.uri === 'string' ? params.uri : undefined;
}
