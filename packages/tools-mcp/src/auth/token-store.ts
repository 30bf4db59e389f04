import type { McpTokenKey, McpTokenStore, McpTokens } from './types.js';

/** The store's key of `key`: server URL and client id. */
export function tokenKeyString(key: McpTokenKey): string {
  return JSON.stringify([key.serverUrl, key.clientId]);
}

/** A token store in memory: tokens live as long as the store. The default of `auth`. */
export function createMemoryTokenStore(): McpTokenStore {
  const tokens = new Map<string, McpTokens>();
  return {
    get: (key) => tokens.get(tokenKeyString(key)),
    set: (key, value) => {
      tokens.set(tokenKeyString(key), value);
    },
    delete: (key) => {
      tokens.delete(tokenKeyString(key));
    },
  };
}
