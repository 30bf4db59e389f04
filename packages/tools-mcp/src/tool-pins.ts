import { sanitizeToolName } from './tool-names.js';
import type { McpToolInfo } from './types.js';

/** A listed tool whose definition, or whose MCP name, differs from its pin. */
export interface ToolChange {
  /** The MCP name now listed. */
  readonly toolName: string;
  /** The MCP name of the pinned definition: another one when a rename took the exposed name. */
  readonly previousToolName: string;
  /** The name the model sees (sanitised, without a prefix), which the pin is kept under. */
  readonly exposedName: string;
  readonly previousFingerprint: string;
  readonly fingerprint: string;
}

/** One tool of a settled listing, with the fingerprint of its definition. */
export interface ListedTool {
  readonly name: string;
  readonly fingerprint: string;
  readonly info: McpToolInfo;
}

/** Whether a `BaseTool` of this MCP name may run now, and if not, why. */
export type ToolStanding = 'usable' | 'blocked' | 'unlisted' | 'unknown';

interface Pin {
  readonly mcpName: string;
  readonly fingerprint: string;
}

/** A listed tool with its exposed name, worked out once per listing (not once per call). */
interface Entry extends ListedTool {
  readonly exposedName: string;
}

/**
 * The first definition this client saw under each exposed name (what the model sees:
 * `sanitizeToolName` of the MCP name), with the MCP name that had it; pins survive reconnects.
 * Keeping pins by exposed name means a rename (`rm.rf` listed in the place of a pinned `rm_rf`)
 * and a listing with two MCP names for one exposed name are changes like a new description.
 *
 * Also the latest listing: a `BaseTool` runs only while its MCP tool is in it and not blocked
 * (under `'block'`: its listed definition, or MCP name, is not the pinned one). After a new
 * connection nothing is known until the next listing (`forget`).
 */
export class ToolPins {
  private readonly pinned = new Map<string, Pin>();
  /** The latest settled listing by MCP name; `undefined` until one on this connection. */
  private listed: Map<string, Entry> | undefined;

  constructor(private readonly mode: 'report' | 'block') {}

  /** Records a listing: pins what is seen for the first time, returns the changes. Never throws. */
  check(tools: readonly ListedTool[]): ToolChange[] {
    const changes: ToolChange[] = [];
    const listed = new Map<string, Entry>();
    for (const tool of tools) {
      const exposedName = sanitizeToolName(tool.name);
      listed.set(tool.name, { ...tool, exposedName });
      const pin = this.pinned.get(exposedName);
      if (pin === undefined) {
        this.pinned.set(exposedName, { mcpName: tool.name, fingerprint: tool.fingerprint });
      } else if (pin.mcpName !== tool.name || pin.fingerprint !== tool.fingerprint) {
        changes.push({
          toolName: tool.name,
          previousToolName: pin.mcpName,
          exposedName,
          previousFingerprint: pin.fingerprint,
          fingerprint: tool.fingerprint,
        });
      }
    }
    this.listed = listed;
    return changes;
  }

  /** A new connection (or none): what it lists is unknown until its first listing. */
  forget(): void {
    this.listed = undefined;
  }

  /** Whether `'block'` keeps this MCP tool out: it is listed, and not as pinned. Never throws. */
  isBlocked(mcpName: string): boolean {
    const listed = this.listed?.get(mcpName);
    return listed !== undefined && this.mode === 'block' && !this.matchesPin(listed);
  }

  /** Whether a `BaseTool` of this MCP name may run now, and if not, why. Never throws. */
  standing(mcpName: string): ToolStanding {
    if (this.listed === undefined) return 'unknown';
    const listed = this.listed.get(mcpName);
    if (listed === undefined) return 'unlisted';
    return this.mode === 'block' && !this.matchesPin(listed) ? 'blocked' : 'usable';
  }

  /** The definition of the latest listing, when the tool is in it. Never throws. */
  current(mcpName: string): McpToolInfo | undefined {
    return this.listed?.get(mcpName)?.info;
  }

  /** Whether tools with changed definitions are blocked (`'block'`) or only reported. */
  get blocks(): boolean {
    return this.mode === 'block';
  }

  /**
   * Pins the listed definition of MCP tool `mcpName` under its exposed name (replacing the
   * pin of another MCP name there); true when it differed from the pin. Never throws.
   */
  accept(mcpName: string): boolean {
    const listed = this.listed?.get(mcpName);
    if (listed === undefined || this.matchesPin(listed)) return false;
    this.pinned.set(listed.exposedName, { mcpName, fingerprint: listed.fingerprint });
    return true;
  }

  private matchesPin(tool: Entry): boolean {
    const pin = this.pinned.get(tool.exposedName);
    return pin !== undefined && pin.mcpName === tool.name && pin.fingerprint === tool.fingerprint;
  }
}
