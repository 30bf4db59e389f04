import { McpToolError } from '../mcp-tool-error.js';

/**
 * A resource read larger than `maxResourceBytes` (decoded: UTF-8 bytes of text, bytes of
 * base64). Code `mcp_error`, not recoverable: reading it again gives the same answer.
 */
export class McpResourceTooLargeError extends McpToolError {
  /** The URI that was read. */
  readonly uri: string;
  /** The decoded size of what the server sent. */
  readonly sizeBytes: number;
  /** The client's `maxResourceBytes`. */
  readonly limitBytes: number;

  /** Makes the error; `readResource()` throws it. */
  constructor(serverName: string, uri: string, sizeBytes: number, limitBytes: number) {
    super(
      'mcp_error',
      `MCP server '${serverName}': resource '${uri}' is ${sizeBytes} bytes, over maxResourceBytes (${limitBytes}). Raise maxResourceBytes to read it.`,
      { serverName, recoverable: false },
    );
    this.uri = uri;
    this.sizeBytes = sizeBytes;
    this.limitBytes = limitBytes;
  }
}
