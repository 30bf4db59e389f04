import type { JsonObject } from '@agcore/tools-core';

// The public shapes of MCP resources and prompts, as the client hands them out.

/** One resource a server lists (`resources/list`). */
export interface McpResourceInfo {
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** The size in bytes the server announced, if it did (not checked). */
  readonly size?: number;
}

/** One resource template a server lists (`resources/templates/list`), an RFC 6570 URI template. */
export interface McpResourceTemplateInfo {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
}

/** One part of a read resource: text, or binary as base64 (`blob`), with its MIME type. */
export type McpResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string };

/** What `readResource()` resolves to. */
export interface McpResourceRead {
  readonly uri: string;
  readonly contents: readonly McpResourceContents[];
  /** The decoded size of every part: UTF-8 bytes of text, decoded bytes of base64. */
  readonly sizeBytes: number;
}

/** One argument a prompt takes. */
export interface McpPromptArgument {
  readonly name: string;
  readonly description?: string;
  readonly required?: boolean;
}

/** One prompt a server lists (`prompts/list`). */
export interface McpPromptInfo {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly arguments?: readonly McpPromptArgument[];
}

/** A part of a user message of a prompt: the shape of llm-cycle's `ContentPart`. */
export type McpPromptPart =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image_url'; readonly image_url: { readonly url: string } };

/**
 * One message of a prompt, structurally an llm-cycle `ChatMessage` (`UserMessage` or
 * `AssistantMessage`), so `cycle.submitMessages(await client.getPrompt(name, args))` seeds a
 * conversation. The README's table gives the mapping from MCP `PromptMessage`s.
 */
export type McpPromptMessage =
  | { readonly role: 'user'; readonly content: string | readonly McpPromptPart[] }
  | { readonly role: 'assistant'; readonly content: string };

/** Called with the URI of a subscribed resource the server says was updated. */
export type McpResourceUpdated = (uri: string) => void;

/**
 * What `McpClient`'s base class and `resourceTools` ask of the client's resources and prompts
 * (`Offerings`), in public types
 * only: a protected member's type is in the `.d.ts`, and `Offerings` would bring the engines'
 * (and the v1 SDK's) types into every consumer's type check.
 */
export interface OfferingsReader {
  /** Every resource, all pages. */
  listResources(): Promise<readonly McpResourceInfo[]>;
  /** Every resource template, all pages. */
  listResourceTemplates(): Promise<readonly McpResourceTemplateInfo[]>;
  /** Every prompt, all pages. */
  listPrompts(): Promise<readonly McpPromptInfo[]>;
  /** One resource's contents, bounded. */
  readResource(uri: string): Promise<McpResourceRead>;
  /** One prompt, filled in with `args`. */
  getPrompt(name: string, args?: JsonObject): Promise<readonly McpPromptMessage[]>;
  /** Updates of one resource until the returned function is called. */
  subscribeResource(uri: string, onUpdated: McpResourceUpdated): Promise<() => Promise<void>>;
}

/**
 * What `resourceTools` ask the client's resource pins (`ResourcePins`), in public types only
 * (see `OfferingsReader`).
 */
export interface ResourceView {
  /** The entries the model may see: under `'block'`, without the changed ones. Never throws. */
  visible<T extends McpResourceInfo | McpResourceTemplateInfo>(entries: readonly T[]): readonly T[];
  /** Whether `read_resource` may read `uri`: not while its listed entry is held back. */
  readable(uri: string): boolean;
}
