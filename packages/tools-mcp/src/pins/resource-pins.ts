import { createHash } from 'node:crypto';
import { canonicalJson } from '@agcore/tools-core';

/** The MCP-side name the changes of the resource tools' view are reported and accepted under. */
export const resourceViewToolName = 'list_resources';

/** A resource or template whose descriptive fields differ from the pinned ones. */
export interface ResourceChange {
  /** The resource's `uri`, or the template's `uriTemplate`. */
  readonly uri: string;
  readonly previousFingerprint: string;
  readonly fingerprint: string;
}

/** A listed resource (`uri`) or template (`uriTemplate`): the fields that are pinned. */
type Entry = (
  | { readonly uri: string; readonly uriTemplate?: undefined }
  | { readonly uri?: undefined; readonly uriTemplate: string }
) & {
  readonly name: string;
  readonly title?: string | undefined;
  readonly description?: string | undefined;
  readonly mimeType?: string | undefined;
};
type List = 'resources' | 'templates';

/**
 * The first descriptive fields (name, title, description, MIME type: what `list_resources`
 * shows a model) seen of each resource `uri` and template `uriTemplate`, for the client's
 * lifetime, as `ToolPins` keeps tool definitions: a later listing that shows others under the
 * same key is a change, held back under `'block'` until accepted. New entries are pinned, gone
 * ones are no change.
 */
export class ResourcePins {
  /** The pinned fingerprint of each key, per list (a template may look like a uri). */
  private readonly pinned = new Map<List, Map<string, string>>();
  /** The latest listing's fingerprint of each key, per list. */
  private readonly listed = new Map<List, Map<string, string>>();

  constructor(private readonly mode: 'report' | 'block') {}

  /** Records a settled listing; returns its changes. Never throws. */
  check(list: List, entries: readonly Entry[]): ResourceChange[] {
    const changes: ResourceChange[] = [];
    const listed = new Map<string, string>();
    const pinned = this.pins(list);
    for (const entry of entries) {
      const uri = keyOf(entry);
      const fingerprint = entryFingerprint(entry);
      listed.set(uri, fingerprint);
      const pin = pinned.get(uri);
      if (pin === undefined) pinned.set(uri, fingerprint);
      else if (pin !== fingerprint) changes.push({ uri, previousFingerprint: pin, fingerprint });
    }
    this.listed.set(list, listed);
    return changes;
  }

  /** The entries the model may see: under `'block'`, without the changed ones. Never throws. */
  visible<T extends Entry>(entries: readonly T[]): readonly T[] {
    if (this.mode !== 'block') return entries;
    return entries.filter(
      (entry) =>
        this.pins(entry.uri === undefined ? 'templates' : 'resources').get(keyOf(entry)) ===
        entryFingerprint(entry),
    );
  }

  /** Whether `read_resource` may read `uri`: not while its listed entry is held back. */
  readable(uri: string): boolean {
    if (this.mode !== 'block') return true;
    const fingerprint = this.listed.get('resources')?.get(uri);
    return fingerprint === undefined || this.pins('resources').get(uri) === fingerprint;
  }

  /** Pins every listed entry that differs from its pin; true when one did. Never throws. */
  accept(): boolean {
    let accepted = false;
    for (const [list, listed] of this.listed) {
      const pinned = this.pins(list);
      for (const [uri, fingerprint] of listed) {
        if (pinned.get(uri) === fingerprint) continue;
        pinned.set(uri, fingerprint);
        accepted = true;
      }
    }
    return accepted;
  }

  /** Whether changed entries are held back (`'block'`) or only reported. */
  get blocks(): boolean {
    return this.mode === 'block';
  }

  private pins(list: List): Map<string, string> {
    let pinned = this.pinned.get(list);
    if (pinned === undefined) {
      pinned = new Map();
      this.pinned.set(list, pinned);
    }
    return pinned;
  }
}

function keyOf(entry: Entry): string {
  return entry.uri ?? entry.uriTemplate;
}

/** SHA-256 (hex) of the entry's descriptive fields as canonical JSON. Never throws. */
function entryFingerprint(entry: Entry): string {
  return createHash('sha256')
    .update(
      canonicalJson({
        name: entry.name,
        title: entry.title,
        description: entry.description,
        mimeType: entry.mimeType,
      }),
    )
    .digest('hex');
}
