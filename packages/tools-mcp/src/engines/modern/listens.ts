// The `subscriptions/listen` streams of a 2026-07-28 connection: one for list changes (tools,
// resources, prompts: what the server says can change), opened at connect, and one per
// subscribed resource URI, which is what `resources/subscribe` became in that revision.
import type { Client, McpSubscription } from '@modelcontextprotocol/client';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

type Filter = Parameters<Client['listen']>[0];

/**
 * The list changes to listen for: those whose `listChanged` the server advertises; `undefined`
 * when it advertises none (no stream is opened then).
 */
export function listChangesFilter(capabilities: unknown): Filter | undefined {
  const advertised = (family: string) =>
    (capabilities as Record<string, { listChanged?: unknown } | undefined> | undefined)?.[family]
      ?.listChanged === true;
  const filter: Filter = {
    ...(advertised('tools') ? { toolsListChanged: true } : {}),
    ...(advertised('resources') ? { resourcesListChanged: true } : {}),
    ...(advertised('prompts') ? { promptsListChanged: true } : {}),
  };
  return Object.keys(filter).length === 0 ? undefined : filter;
}

/**
 * The resource subscriptions of one 2026-07-28 connection: `subscribe(uri)` opens a
 * `subscriptions/listen` stream for that URI (its updates reach the SDK's
 * `notifications/resources/updated` handler), `unsubscribe(uri)` closes it.
 */
export class ResourceListens {
  private readonly open = new Map<string, McpSubscription>();

  constructor(private readonly sdk: Client) {}

  /**
   * Resolves once the server acknowledged the stream for `uri`.
   *
   * @throws {McpError} when the server does not offer resource subscriptions, or did not honor
   *   this one; what the SDK throws otherwise.
   */
  async subscribe(uri: string, timeoutMs: number): Promise<Record<string, never>> {
    const refused = () =>
      new McpError(
        ErrorCode.MethodNotFound,
        'the server does not offer resource subscriptions (no resources.subscribe capability)',
      );
    if (this.sdk.getServerCapabilities()?.resources?.subscribe !== true) throw refused();
    const stream = await this.sdk.listen({ resourceSubscriptions: [uri] }, { timeout: timeoutMs });
    if (stream.honoredFilter.resourceSubscriptions?.includes(uri) !== true) {
      await stream.close();
      throw refused();
    }
    const earlier = this.open.get(uri);
    this.open.set(uri, stream);
    await earlier?.close();
    return {};
  }

  /** Closes the stream of `uri`, if one is open. Never throws. */
  async unsubscribe(uri: string): Promise<Record<string, never>> {
    const stream = this.open.get(uri);
    this.open.delete(uri);
    await stream?.close().catch(() => undefined);
    return {};
  }
}
