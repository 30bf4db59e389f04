/**
 * The change feed a fleet of MCP servers shares, so that a change made on one node reaches the
 * clients of every node. A type only: the in-memory feed lives in tools-mcp-server and the
 * shared ones in a store package (`@agcore/store-postgres`: `LISTEN/NOTIFY`).
 */

/**
 * A change a server announces to its clients, one per MCP notification: `tools_list_changed`
 * (`notifications/tools/list_changed`), `prompts_list_changed`, `resources_list_changed`, and
 * `resource_updated` (`notifications/resources/updated`, for one resource `uri`).
 */
export type ServerChange =
  | { readonly kind: 'tools_list_changed' }
  | { readonly kind: 'prompts_list_changed' }
  | { readonly kind: 'resources_list_changed' }
  | { readonly kind: 'resource_updated'; readonly uri: string };

/**
 * Publish/subscribe of `ServerChange`s between the processes that serve one set of tools: a
 * change published on one process reaches every subscriber of every process sharing the feed,
 * the publisher's own included. Delivery is at most once per subscriber and in no promised order
 * across publishers; a subscriber that was not connected when a change was published misses it.
 */
export interface ChangeFeed {
  /** Announces `change` to every subscriber; rejects when the feed could not send it. */
  publish(change: ServerChange): Promise<void>;
  /**
   * Calls `listener` with every change published from now on (a throw from it is the feed's to
   * contain); returns a function that stops the calls (calling it again does nothing).
   */
  subscribe(listener: (change: ServerChange) => void): () => void;
}
