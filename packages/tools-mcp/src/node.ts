// The Node-only parts of tools-mcp (they use node:fs), kept out of the root entry that a
// browser or an edge runtime could load.
export { createFileTokenStore } from './auth/file-token-store.js';
