import type { JsonObject } from '@agcore/tools-core';
import type { CallPlan } from './call-plan.js';
import { type McpToolResult, toToolResult } from './call-result.js';
import type { McpConnection } from './connection.js';
import type { ErrorScope } from './error-mapping.js';
import { type McpErrorCode, McpToolError } from './mcp-tool-error.js';

/**
 * Sends one `tools/call` as `plan` says and maps the outcome: the result, or an
 * `McpToolError` (as `McpClient.callTool` documents), secrets removed from a server's error text.
 */
export async function runCall(
  connection: McpConnection,
  name: string,
  args: JsonObject,
  plan: CallPlan,
  scope: ErrorScope,
): Promise<McpToolResult> {
  if (plan.listensToProgress) connection.progressCalls++;
  let raw: Parameters<typeof toToolResult>[0];
  try {
    raw = await connection.sdk.callTool({ name, arguments: args }, undefined, plan.request);
  } catch (error) {
    const abort = plan.abort;
    throw connection.failure(error, {
      kind: 'call',
      toolName: name,
      timeoutMs: plan.timeoutMs,
      maxTotalTimeoutMs: plan.maxTotalTimeoutMs,
      aborted: abort?.aborted === true,
      abortReason: abort?.reason,
    });
  } finally {
    plan.abort?.release();
    if (plan.listensToProgress) connection.progressCalls--;
  }
  if (raw.isError !== true || scope.transport.type === 'stdio') {
    return toToolResult(raw, scope.serverName, name);
  }
  try {
    return toToolResult(raw, scope.serverName, name);
  } catch (error) {
    // A server's error text goes to the model: never with the caller's header values in it.
    const failed = error as McpToolError;
    throw new McpToolError(failed.code as McpErrorCode, scope.redact(failed.message), {
      serverName: scope.serverName,
      toolName: name,
    });
  }
}
