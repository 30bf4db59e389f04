import type { JsonObject, JsonValue } from '@agcore/tools-core';
import type { CallPlan } from '../calls/call-plan.js';
import { type McpToolResult, type RawCallResult, toToolResult } from '../calls/call-result.js';
import { traceMeta } from '../calls/tracing.js';
import type { EngineConnection } from '../engines/engine.js';
import type { ErrorScope } from '../engines/error-mapping.js';
import { McpToolError } from '../mcp-tool-error.js';

type RawResult = RawCallResult;

/** The `_meta` key of the caller's idempotency key (what `@agcore/tools-mcp-server` reads). */
const idempotencyKeyMetaKey = 'dev.agcore/idempotencyKey';

/**
 * Sends one `tools/call` as `plan` says and maps the outcome: the result, or an
 * `McpToolError` (as `McpClient.callTool` documents), secrets removed from a server's error
 * text. One `then` on the SDK's promise, no async wrapper: this is every call's path.
 */
export function runCall(
  connection: EngineConnection,
  name: string,
  args: JsonObject,
  plan: CallPlan,
  scope: ErrorScope,
): Promise<McpToolResult> {
  return send(connection, name, args, plan).then(
    (raw) => {
      finish(connection, plan);
      return resultOf(raw, name, scope);
    },
    (error: unknown) => {
      finish(connection, plan);
      throw failureOf(connection, name, plan, error);
    },
  );
}

/** As `runCall`, resolving the result's `value` (what a `BaseTool` returns). */
export function runCallForValue(
  connection: EngineConnection,
  name: string,
  args: JsonObject,
  plan: CallPlan,
  scope: ErrorScope,
): Promise<JsonValue> {
  return send(connection, name, args, plan).then(
    (raw) => {
      finish(connection, plan);
      return resultOf(raw, name, scope).value;
    },
    (error: unknown) => {
      finish(connection, plan);
      throw failureOf(connection, name, plan, error);
    },
  );
}

function send(
  connection: EngineConnection,
  name: string,
  args: JsonObject,
  plan: CallPlan,
): Promise<RawResult> {
  if (plan.listensToProgress) connection.progressCalls++;
  try {
    // The active span's context rides in `_meta`, so the server's spans join the trace; the
    // caller's idempotency key too, so a server can tell a repeated call from a new one.
    const trace = traceMeta();
    const key = plan.idempotencyKey;
    const meta = key === undefined ? trace : { ...trace, [idempotencyKeyMetaKey]: key };
    return connection.callTool(
      meta === undefined ? { name, arguments: args } : { name, arguments: args, _meta: meta },
      plan.request,
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

function finish(connection: EngineConnection, plan: CallPlan): void {
  plan.abort?.release();
  if (plan.listensToProgress) connection.progressCalls--;
}

function failureOf(
  connection: EngineConnection,
  name: string,
  plan: CallPlan,
  error: unknown,
): McpToolError {
  const abort = plan.abort;
  return connection.failure(error, {
    kind: 'call',
    toolName: name,
    timeoutMs: plan.timeoutMs,
    maxTotalTimeoutMs: plan.maxTotalTimeoutMs,
    aborted: abort?.aborted === true,
    abortReason: abort?.reason,
  });
}

function resultOf(raw: RawResult, name: string, scope: ErrorScope): McpToolResult {
  if (raw.isError !== true || scope.transport.type === 'stdio') {
    return toToolResult(raw, scope.serverName, name);
  }
  try {
    return toToolResult(raw, scope.serverName, name);
  } catch (error) {
    // A server's error text goes to the model: never with the caller's header values in it.
    const failed = error as McpToolError;
    throw new McpToolError(failed.code, scope.redact(failed.message), {
      serverName: scope.serverName,
      toolName: name,
    });
  }
}
