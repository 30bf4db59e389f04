import { exposedToolName } from '../tool-names.js';
import type { McpToolInfo } from '../types.js';

/** A listed tool whose definition, or whose MCP name, differs from its pin. */
export interface ToolChange {
  /** The MCP name now listed. */
  readonly toolName: string;
  /** The MCP name of the pinned definition: another one when a rename took the exposed name. */
  readonly previousToolName: string;
  /** The name the model sees (sanitised, with a prefix or not), which the pin is kept under. */
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

/** A listed tool with its exposed names (one per prefix in use) and whether it is blocked. */
interface Entry extends ListedTool {
  readonly exposedNames: string[];
  blocked: boolean;
}

/**
 * The first definition this client saw under each exposed name (what the model sees:
 * `exposedToolName` of the MCP name, without a prefix and with each prefix `tools()` was asked
 * for), with the MCP name that had it; pins survive reconnects. Keeping pins by exposed name
 * means a rename (`rm.rf` listed in the place of a pinned `rm_rf`), a listing with two MCP
 * names for one exposed name, and a 64-character name that takes a long name's hashed exposed
 * name under a prefix are changes like a new description.
 *
 * Also the latest listing: a `BaseTool` runs only while its MCP tool is in it and not blocked
 * (under `'block'`: its listed definition, or MCP name, is not the pinned one under one of its
 * exposed names). After a new connection nothing is known until the next listing (`forget`).
 */
export class ToolPins {
  private readonly pinned = new Map<string, Pin>();
  private readonly prefixes = new Set<string | undefined>([undefined]);
  /** The latest settled listing by MCP name; `undefined` until one on this connection. */
  private listed: Map<string, Entry> | undefined;

  constructor(private readonly mode: 'report' | 'block') {}

  /** Records a listing: pins what is seen for the first time, returns the changes. Never throws. */
  check(tools: readonly ListedTool[]): ToolChange[] {
    const changes: ToolChange[] = [];
    const listed = new Map<string, Entry>();
    for (const tool of tools) {
      const exposedNames = [...this.prefixes].map((prefix) => exposedToolName(tool.name, prefix));
      listed.set(tool.name, { ...tool, exposedNames, blocked: false });
      let change: ToolChange | undefined;
      for (const exposedName of exposedNames) {
        const pin = this.pinned.get(exposedName);
        if (pin === undefined) {
          this.pinned.set(exposedName, { mcpName: tool.name, fingerprint: tool.fingerprint });
        } else if (change === undefined && !sameAs(pin, tool)) {
          change = {
            toolName: tool.name,
            previousToolName: pin.mcpName,
            exposedName,
            previousFingerprint: pin.fingerprint,
            fingerprint: tool.fingerprint,
          };
        }
      }
      if (change !== undefined) changes.push(change);
    }
    this.listed = listed;
    this.settle();
    return changes;
  }

  /**
   * `tools()` hands out names with `prefix`: from now on they are pinned too, starting from
   * what is pinned under the unprefixed name (or, for a name pinned nowhere, the latest
   * listing). Never throws.
   */
  usePrefix(prefix: string | undefined): void {
    if (this.prefixes.has(prefix)) return;
    this.prefixes.add(prefix);
    for (const entry of this.listed?.values() ?? []) {
      const exposedName = exposedToolName(entry.name, prefix);
      entry.exposedNames.push(exposedName);
      if (this.pinned.has(exposedName)) continue;
      const unprefixed = this.pinned.get(exposedToolName(entry.name, undefined));
      this.pinned.set(
        exposedName,
        unprefixed ?? { mcpName: entry.name, fingerprint: entry.fingerprint },
      );
    }
    this.settle();
  }

  /** A new connection (or none): what it lists is unknown until its first listing. */
  forget(): void {
    this.listed = undefined;
  }

  /** Whether `'block'` keeps this MCP tool out: it is listed, and not as pinned. Never throws. */
  isBlocked(mcpName: string): boolean {
    return this.listed?.get(mcpName)?.blocked === true;
  }

  /** Whether a `BaseTool` of this MCP name may run now, and if not, why. Never throws. */
  standing(mcpName: string): ToolStanding {
    if (this.listed === undefined) return 'unknown';
    const listed = this.listed.get(mcpName);
    if (listed === undefined) return 'unlisted';
    return listed.blocked ? 'blocked' : 'usable';
  }

  /** The definition of the latest listing, when the tool is in it. Never throws. */
  current(mcpName: string): McpToolInfo | undefined {
    return this.listed?.get(mcpName)?.info;
  }

  /** The fingerprint of the latest listing's definition, when the tool is in it. Never throws. */
  fingerprint(mcpName: string): string | undefined {
    return this.listed?.get(mcpName)?.fingerprint;
  }

  /** Whether tools with changed definitions are blocked (`'block'`) or only reported. */
  get blocks(): boolean {
    return this.mode === 'block';
  }

  /**
   * Pins the listed definition of MCP tool `mcpName` under its exposed names (replacing the
   * pin of another MCP name there); true when it differed from a pin. Never throws.
   */
  accept(mcpName: string): boolean {
    const listed = this.listed?.get(mcpName);
    if (listed === undefined || this.matchesPins(listed)) return false;
    const pin: Pin = { mcpName, fingerprint: listed.fingerprint };
    for (const exposedName of listed.exposedNames) this.pinned.set(exposedName, pin);
    this.settle();
    return true;
  }

  /** Works out, once per listing, pin and prefix (not once per call), which tools are blocked. */
  private settle(): void {
    for (const entry of this.listed?.values() ?? []) {
      entry.blocked = this.mode === 'block' && !this.matchesPins(entry);
    }
  }

  private matchesPins(entry: Entry): boolean {
    return entry.exposedNames.every((exposedName) => {
      const pin = this.pinned.get(exposedName);
      return pin !== undefined && sameAs(pin, entry);
    });
  }
}

function sameAs(pin: Pin, tool: ListedTool): boolean {
  return pin.mcpName === tool.name && pin.fingerprint === tool.fingerprint;
}
