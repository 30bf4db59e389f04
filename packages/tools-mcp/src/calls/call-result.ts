import {
  type JsonObject,
  type JsonValue,
  type ToolErrorCode,
  toolErrorCodes,
} from '@agcore/tools-core';
import { McpToolError } from '../mcp-tool-error.js';

/** A text block of a tool result. */
export interface McpTextContent {
  readonly type: 'text';
  readonly text: string;
}

/** An image of a tool result, base64-encoded. */
export interface McpImageContent {
  readonly type: 'image';
  readonly data: string;
  readonly mimeType: string;
}

/** Audio of a tool result, base64-encoded. */
export interface McpAudioContent {
  readonly type: 'audio';
  readonly data: string;
  readonly mimeType: string;
}

/** A link to a resource the server offers. */
export interface McpResourceLinkContent {
  readonly type: 'resource_link';
  readonly uri: string;
  readonly name: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** A resource embedded in a tool result, as text or a base64 blob. */
export interface McpEmbeddedResourceContent {
  readonly type: 'resource';
  readonly resource: {
    readonly uri: string;
    readonly mimeType?: string;
    readonly text?: string;
    readonly blob?: string;
  };
}

/** One content block of an MCP tool result, as the server sent it. */
export type McpContentBlock =
  | McpTextContent
  | McpImageContent
  | McpAudioContent
  | McpResourceLinkContent
  | McpEmbeddedResourceContent;

/** What a successful MCP tool call gave back. */
export interface McpToolResult {
  /**
   * The result as one JSON value, what a `BaseTool` made by `tools()` returns:
   * - `structuredContent` when the server sent it (with any non-text blocks alongside, as
   *   `{ structuredContent, content }`, so images are never dropped);
   * - else, when every block is text, the texts joined with a newline ('' for no content);
   * - else the content blocks themselves (`[{ type: 'text', text }, { type: 'image', data,
   *   mimeType }, ...]`), so images, audio and resources keep their type.
   */
  readonly value: JsonValue;
  /** Every content block, as the server sent it. */
  readonly content: readonly McpContentBlock[];
  /** The server's structured result, when it sent one. */
  readonly structuredContent?: JsonObject;
}

/** A `tools/call` result as the SDK hands it over, before it is checked. */
export interface RawCallResult {
  readonly content?: readonly unknown[];
  readonly structuredContent?: unknown;
  readonly isError?: boolean;
  readonly toolResult?: unknown;
  readonly _meta?: unknown;
}

/** The `_meta` key in which `@agcore/tools-mcp-server` sends a failed tool's ToolError code. */
const errorCodeMetaKey = 'dev.agcore/errorCode';

/** The ToolError code a server declared for a failed call, when it is one we know. */
function declaredCode(meta: unknown): ToolErrorCode | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const code = (meta as Record<string, unknown>)[errorCodeMetaKey];
  return typeof code === 'string' && (toolErrorCodes as readonly string[]).includes(code)
    ? (code as ToolErrorCode)
    : undefined;
}

/**
 * Turns a `tools/call` result into an `McpToolResult`.
 *
 * @throws {McpToolError} `execution_failed` (recoverable) when the server set `isError: true`,
 *   or the code it declared in `_meta["dev.agcore/errorCode"]` (recoverable as that code is); the
 *   message carries the server's text.
 */
export function toToolResult(
  raw: RawCallResult,
  serverName: string,
  toolName: string,
): McpToolResult {
  const content = (raw.content ??
    (raw.toolResult === undefined
      ? []
      : [
          {
            type: 'text',
            text:
              typeof raw.toolResult === 'string' ? raw.toolResult : JSON.stringify(raw.toolResult),
          },
        ])) as readonly McpContentBlock[];
  if (raw.isError === true) {
    const text = textOf(content) || '(the server gave no error text)';
    throw new McpToolError(
      declaredCode(raw._meta) ?? 'execution_failed',
      `MCP tool '${toolName}' on server '${serverName}' reported an error: ${text}`,
      { serverName, toolName },
    );
  }
  let allText = true;
  for (const block of content) {
    if (block.type !== 'text') {
      allText = false;
      break;
    }
  }
  const structured = isJsonObject(raw.structuredContent) ? raw.structuredContent : undefined;
  let value: JsonValue;
  if (structured !== undefined) {
    value = allText
      ? structured
      : {
          structuredContent: structured,
          content: content.filter((block) => block.type !== 'text') as unknown as JsonValue[],
        };
  } else if (allText) {
    value = content.length === 1 ? (content[0] as McpTextContent).text : textOf(content);
  } else {
    value = content as unknown as JsonValue[];
  }
  return structured === undefined
    ? { value, content }
    : { value, content, structuredContent: structured };
}

function textOf(content: readonly McpContentBlock[]): string {
  const texts: string[] = [];
  for (const block of content) if (block.type === 'text') texts.push(block.text);
  return texts.join('\n');
}

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
