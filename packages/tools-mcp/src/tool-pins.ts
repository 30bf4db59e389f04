/** A listed tool whose definition differs from its pinned one. */
export interface ToolChange {
  readonly toolName: string;
  readonly previousFingerprint: string;
  readonly fingerprint: string;
}

/**
 * The first definition this client saw of each tool, by fingerprint (pins survive reconnects),
 * and the definition the latest listing showed. A tool whose listed definition differs from
 * its pin has changed; under `'block'` it stays blocked until the application accepts the new
 * definition, or the server lists the pinned one again.
 */
export class ToolPins {
  private readonly pinned = new Map<string, string>();
  private readonly listed = new Map<string, string>();

  constructor(private readonly mode: 'report' | 'block') {}

  /** Records a listing: pins tools seen for the first time, returns those that changed. */
  check(tools: readonly { readonly name: string; readonly fingerprint: string }[]): ToolChange[] {
    const changes: ToolChange[] = [];
    this.listed.clear();
    for (const { name, fingerprint } of tools) {
      this.listed.set(name, fingerprint);
      const pinned = this.pinned.get(name);
      if (pinned === undefined) this.pinned.set(name, fingerprint);
      else if (pinned !== fingerprint) {
        changes.push({ toolName: name, previousFingerprint: pinned, fingerprint });
      }
    }
    return changes;
  }

  /** Whether `'block'` keeps this tool out: its listed definition is not the pinned one. */
  isBlocked(name: string): boolean {
    if (this.mode !== 'block') return false;
    const listed = this.listed.get(name);
    return listed !== undefined && listed !== this.pinned.get(name);
  }

  /** Whether tools with changed definitions are blocked (`'block'`) or only reported. */
  get blocks(): boolean {
    return this.mode === 'block';
  }

  /** Pins the listed definition of `name`; true when it differed from the pin. Never throws. */
  accept(name: string): boolean {
    const listed = this.listed.get(name);
    if (listed === undefined || listed === this.pinned.get(name)) return false;
    this.pinned.set(name, listed);
    return true;
  }
}
