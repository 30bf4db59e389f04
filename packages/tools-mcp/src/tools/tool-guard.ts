import type { JsonObject, JsonValue, Permission, ToolContext } from '@agcore/tools-core';
import { McpToolError } from '../mcp-tool-error.js';
import type { ToolStanding } from '../pins/tool-pins.js';
import { needsApprovalFromAnnotations, permissionsFromAnnotations } from '../tool-permissions.js';
import type { McpToolInfo } from '../types.js';

/** What the guard of a tool needs of its client (part of `ToolHost`). */
export interface GuardHost {
  readonly serverName: string;
  readonly trustAnnotations: boolean;
  /** Whether a `BaseTool` of this MCP tool may run now, and if not, why. */
  standing(mcpName: string): ToolStanding;
  /** The tool's definition in the latest listing, when it is in it. */
  current(mcpName: string): McpToolInfo | undefined;
  /** The fingerprint of that definition. */
  fingerprint(mcpName: string): string | undefined;
  /** Lists the tools (from the cache when fresh) for a call of `mcpName`, named in its errors. */
  listFor(mcpName: string): Promise<unknown>;
  /** Calls a tool on the caller's clock. */
  callTool(name: string, args: JsonObject, context: ToolContext): Promise<JsonValue>;
}

/**
 * The call-time rules of one `BaseTool` made by `tools()`: it runs only while its MCP tool is
 * listed and not blocked, never with permissions beyond those it declared (what a registry
 * checked when it registered the tool), and its approval follows the listed definition.
 */
export class ToolGuard {
  /**
   * The fingerprint each approval verdict was worked out on, by call (session and call id),
   * until the call runs: a definition that changed in between and needs approval now stops it.
   */
  private readonly verdicts = new Map<string, string | undefined>();
  /** The definition the permission verdict below was worked out for (one per listing). */
  private checked: McpToolInfo | undefined;
  private beyond: readonly Permission[] = [];

  /**
   * @param declared the tool's `requiredPermissions`; `derived`: they come from annotations
   *   (no override), so a changed definition can need more.
   */
  constructor(
    private readonly host: GuardHost,
    private readonly mcpName: string,
    private readonly declared: readonly Permission[],
    private readonly derived: boolean,
  ) {}

  /** Calls the tool, or rejects with why it may not run now; never reaches the server then. */
  call(args: JsonObject, context: ToolContext): Promise<JsonValue> {
    const standing = this.host.standing(this.mcpName);
    if (standing === 'unknown') {
      // A new connection: what it serves is known only once it is listed.
      return this.host
        .listFor(this.mcpName)
        .then(() => this.callAs(this.host.standing(this.mcpName), args, context));
    }
    return this.callAs(standing, args, context);
  }

  /**
   * Whether a call needs a person's approval under the definition the client knows now: from
   * its annotations (of a trusted server), `true` when untrusted, blocked or not listed.
   * Lists first after a new connection. @throws {McpToolError} as listing the tools does.
   */
  needsApproval(context: ToolContext | undefined): boolean | Promise<boolean> {
    if (this.host.standing(this.mcpName) === 'unknown') {
      return this.host.listFor(this.mcpName).then(() => this.approvalFor(context));
    }
    return this.approvalFor(context);
  }

  /** The listed annotations, or those the tool was made with when it is not listed now. */
  annotations(made: McpToolInfo): McpToolInfo['annotations'] {
    return (this.host.current(this.mcpName) ?? made).annotations;
  }

  private approvalFor(context: ToolContext | undefined): boolean {
    const key = callKey(context);
    if (key !== undefined) {
      if (this.verdicts.size >= maxVerdicts) {
        const oldest = this.verdicts.keys().next();
        if (oldest.done !== true) this.verdicts.delete(oldest.value);
      }
      this.verdicts.set(key, this.host.fingerprint(this.mcpName));
    }
    return this.approvalKnown();
  }

  /** Whether the definition changed since this call's approval verdict, and needs approval now. */
  private approvedOnAnother(context: ToolContext): boolean {
    const key = callKey(context);
    if (key === undefined || !this.verdicts.has(key)) return false;
    const decidedOn = this.verdicts.get(key);
    this.verdicts.delete(key);
    return decidedOn !== this.host.fingerprint(this.mcpName) && this.approvalKnown();
  }

  private approvalKnown(): boolean {
    const info = this.host.current(this.mcpName);
    if (info === undefined || this.host.standing(this.mcpName) !== 'usable') return true;
    return needsApprovalFromAnnotations(this.host.trustAnnotations ? info.annotations : undefined);
  }

  private callAs(
    standing: ToolStanding,
    args: JsonObject,
    context: ToolContext,
  ): Promise<JsonValue> {
    if (standing !== 'usable') return Promise.reject(this.refusal(standing));
    const beyond = this.permissionsBeyond();
    if (beyond.length > 0) return Promise.reject(this.tooMuch(beyond));
    if (this.verdicts.size > 0 && this.approvedOnAnother(context)) {
      return Promise.reject(this.refusal('changed'));
    }
    return this.host.callTool(this.mcpName, args ?? {}, context);
  }

  /** The permissions the listed definition needs that the tool does not declare. */
  private permissionsBeyond(): readonly Permission[] {
    if (!this.derived || !this.host.trustAnnotations) return [];
    const info = this.host.current(this.mcpName);
    if (info === this.checked) return this.beyond;
    this.checked = info;
    this.beyond = permissionsFromAnnotations(info?.annotations).filter(
      (permission) => !this.declared.includes(permission),
    );
    return this.beyond;
  }

  private refusal(standing: ToolStanding | 'changed'): McpToolError {
    const { serverName } = this.host;
    const tool = `MCP tool '${this.mcpName}' of server '${serverName}'`;
    const message =
      standing === 'blocked'
        ? `${tool} is blocked: its definition changed since this client first saw it, and onToolChange is 'block'. Review the new definition and call acceptToolChange('${this.mcpName}') on the client to use it.`
        : standing === 'unlisted'
          ? `${tool} was not run: it is no longer listed by the server. It runs again once the server lists it again.`
          : standing === 'changed'
            ? `${tool} was not run: its definition changed after this call's approval was decided, and the new one needs a person's approval. Call it again to have it decided on the new definition.`
            : `${tool} was not run: the client reconnected while listing the server's tools, so what the server serves is not known yet. Try the call again.`;
    return new McpToolError('denied', message, { serverName, toolName: this.mcpName });
  }

  private tooMuch(beyond: readonly Permission[]): McpToolError {
    const { serverName } = this.host;
    const quoted = (list: readonly Permission[]): string =>
      list.map((permission) => `'${permission}'`).join(', ');
    return new McpToolError(
      'permission_denied',
      `MCP tool '${this.mcpName}' of server '${serverName}' was not run: its definition changed and now needs ${quoted(beyond)}, beyond the ${quoted(this.declared)} it declared when tools() made it (what a registry checked). Call tools() again and register the new tool to let the permission checker decide.`,
      { serverName, toolName: this.mcpName },
    );
  }
}

/** How many calls' approval verdicts a tool keeps until they run (the oldest go first). */
const maxVerdicts = 256;

/** A call's identity for its approval verdict: its session and the model's call id. */
function callKey(context: ToolContext | undefined): string | undefined {
  const callId = context?.toolCallId;
  return callId === undefined ? undefined : `${context?.sessionId ?? ''}\n${callId}`;
}
