import type { ToolProblem } from '../listing/tool-validation.js';
import { McpToolError } from '../mcp-tool-error.js';
import { type ResourceChange, resourceViewToolName } from '../pins/resource-pins.js';
import type { ToolChange } from '../pins/tool-pins.js';
import type { McpWarning } from '../types.js';

/**
 * The client's two channels to the application: `onError` for failures no request could be
 * rejected with, `onWarning` for what it found wrong with the server's tools (each warning
 * once per client). A listener that throws never breaks the client.
 */
export class Reporter {
  private readonly warned = new Set<string>();

  constructor(
    private readonly serverName: string,
    private readonly onError: ((error: Error) => void) | undefined,
    private readonly onWarning: ((warning: McpWarning) => void) | undefined,
  ) {}

  /** Hands `error` to `onError`. Never throws. */
  error(error: unknown): void {
    if (this.onError === undefined) return;
    try {
      this.onError(error instanceof Error ? error : new Error(String(error)));
    } catch {
      // A failing listener must not break the client.
    }
  }

  /** Reports a left-out tool, once per client (listings repeat it until the server is fixed). */
  invalidTool(problem: ToolProblem): void {
    this.warn(`invalid_tool\n${problem.toolName}\n${problem.message}`, {
      kind: 'invalid_tool',
      serverName: this.serverName,
      toolName: problem.toolName,
      message: problem.message,
    });
  }

  /** Reports a tool whose definition (or MCP name) changed, once per new definition. */
  toolChanged(change: ToolChange, blocked: boolean): void {
    const { toolName, previousToolName, exposedName, previousFingerprint, fingerprint } = change;
    const what =
      previousToolName === toolName
        ? `tool '${toolName}' changed its definition since this client first saw it (fingerprint ${short(previousFingerprint)} → ${short(fingerprint)})`
        : `tool '${toolName}' takes the exposed name '${exposedName}' of the pinned tool '${previousToolName}' (fingerprint ${short(previousFingerprint)} → ${short(fingerprint)})`;
    this.warn(`tool_changed\n${toolName}\n${fingerprint}`, {
      kind: 'tool_changed',
      serverName: this.serverName,
      toolName,
      previousToolName,
      previousFingerprint,
      fingerprint,
      blocked,
      message: `MCP server '${this.serverName}': ${what}; ${
        blocked
          ? `it is kept out of tools() until the application reviews it and calls acceptToolChange('${toolName}')`
          : `the new definition is in use (onToolChange: 'block' would hold it back until accepted)`
      }.`,
    });
  }

  /** Reports a resource or template whose entry changed, once per new fingerprint. */
  resourceChanged(change: ResourceChange, blocked: boolean): void {
    const { uri, previousFingerprint, fingerprint } = change;
    const toolName = resourceViewToolName;
    this.warn(`tool_changed\n${toolName}\n${uri}\n${fingerprint}`, {
      kind: 'tool_changed',
      serverName: this.serverName,
      toolName,
      previousToolName: toolName,
      uri,
      previousFingerprint,
      fingerprint,
      blocked,
      message: `MCP server '${this.serverName}': the entry of '${uri}' that ${toolName} shows changed its name, title, description or MIME type since this client first saw it (fingerprint ${short(previousFingerprint)} → ${short(fingerprint)}); ${
        blocked
          ? `it is kept out of the resource tools until the application reviews it and calls acceptToolChange('${toolName}')`
          : `the new entry is in use (onToolChange: 'block' would hold it back until accepted)`
      }.`,
    });
  }

  /** Reports a schema pattern left unchecked (the compiler gives each pattern once). */
  uncheckedPattern(toolName: string, message: string): void {
    this.warn(`unchecked_pattern\n${toolName}\n${message}`, {
      kind: 'unchecked_pattern',
      serverName: this.serverName,
      toolName,
      message: `MCP server '${this.serverName}': ${message}`,
    });
  }

  /** Reports a resource, template or prompt left out of a listing to `onError`, once each. */
  invalidOffering(message: string): void {
    const key = `invalid_offering\n${message}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.error(new McpToolError('mcp_error', message, { serverName: this.serverName }));
  }

  /** Hands `warning` to `onWarning` unless one with the same `key` went before. Never throws. */
  warn(key: string, warning: McpWarning): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    try {
      this.onWarning?.(warning);
    } catch {
      // A failing listener must not break the listing.
    }
  }
}

function short(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}
