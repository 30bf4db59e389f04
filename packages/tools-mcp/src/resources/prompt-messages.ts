import { McpToolError } from '../mcp-tool-error.js';
import type { McpPromptMessage, McpPromptPart } from './resource-types.js';

type Fields = Record<string, unknown>;

/**
 * One MCP content block of a prompt as a message part: text as text; an image as an
 * `image_url` part with a `data:` URL; an embedded text resource as its text; anything else
 * (audio, a blob resource, a resource link) as a text line naming it, since a chat message
 * cannot carry it.
 */
function toPart(content: unknown): McpPromptPart {
  const block = (typeof content === 'object' && content !== null ? content : {}) as Fields;
  if (block.type === 'text' && typeof block.text === 'string') {
    return { type: 'text', text: block.text };
  }
  if (block.type === 'image' && typeof block.data === 'string') {
    const mime = typeof block.mimeType === 'string' ? block.mimeType : 'image/png';
    return { type: 'image_url', image_url: { url: `data:${mime};base64,${block.data}` } };
  }
  const resource = (block.resource ?? {}) as Fields;
  if (block.type === 'resource' && typeof resource.text === 'string') {
    return { type: 'text', text: resource.text };
  }
  const uri = typeof resource.uri === 'string' ? resource.uri : block.uri;
  const mime = typeof block.mimeType === 'string' ? block.mimeType : resource.mimeType;
  const what = [typeof block.type === 'string' ? block.type : 'content', uri, mime]
    .filter((part) => typeof part === 'string')
    .join(' ');
  return { type: 'text', text: `[${what}]` };
}

/** The text of a part, for an assistant message (which carries text only). */
function textOf(part: McpPromptPart): string {
  return part.type === 'text' ? part.text : `[image ${part.image_url.url.slice(0, 40)}…]`;
}

/**
 * The messages of a `prompts/get` result as chat messages: `user` → a user message (a single
 * text part as a string, else the parts), `assistant` → an assistant message of text.
 *
 * @throws {McpToolError} `mcp_error` when the result has no `messages` array or a message has
 *   another role.
 */
export function promptMessages(
  result: unknown,
  serverName: string,
  promptName: string,
): readonly McpPromptMessage[] {
  const messages = (result as { messages?: unknown } | undefined)?.messages;
  const bad = (why: string) =>
    new McpToolError('mcp_error', `MCP server '${serverName}': prompt '${promptName}' ${why}.`, {
      serverName,
    });
  if (!Array.isArray(messages)) throw bad('came without a messages array');
  return Object.freeze(
    messages.map((message: unknown): McpPromptMessage => {
      const { role, content } = (message ?? {}) as Fields;
      const part = toPart(content);
      if (role === 'assistant') return { role, content: textOf(part) };
      if (role !== 'user') throw bad(`has a message of role ${JSON.stringify(role)}`);
      return { role, content: part.type === 'text' ? part.text : [part] };
    }),
  );
}
