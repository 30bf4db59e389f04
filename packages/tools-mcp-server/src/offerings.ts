/** The resources and prompts `serveTools` serves beside tools: the provider interfaces. */
import type { McpCaller } from './types.js';

/** What a provider is told about the request it answers. */
export interface McpRequestInfo {
  /** The caller, when `authenticate` named one. */
  readonly caller?: McpCaller;
  /** Aborts when the client goes away or the server closes. */
  readonly signal: AbortSignal;
}

/** A resource as `resources/list` lists it. */
export interface McpResource {
  /** Its URI, what `resources/read` is asked for. */
  readonly uri: string;
  /** A short name. */
  readonly name: string;
  /** A human-readable title. */
  readonly title?: string;
  /** What it holds. */
  readonly description?: string;
  /** Its MIME type, when known. */
  readonly mimeType?: string;
  /** Its size in bytes, when known. */
  readonly size?: number;
}

/** A URI template (RFC 6570) as `resources/templates/list` lists it. */
export interface McpResourceTemplate {
  /** The template, e.g. `file:///logs/{day}`. */
  readonly uriTemplate: string;
  /** A short name. */
  readonly name: string;
  /** A human-readable title. */
  readonly title?: string;
  /** What the resources it names hold. */
  readonly description?: string;
  /** The MIME type of those resources, when they share one. */
  readonly mimeType?: string;
}

/** The contents of a resource: text, or binary as base64 (`blob`). */
export type McpResourceContents =
  | { readonly uri: string; readonly mimeType?: string; readonly text: string }
  | { readonly uri: string; readonly mimeType?: string; readonly blob: string };

/** One page of `resources/list`. */
export interface McpResourcePage {
  /** The resources on this page. */
  readonly resources: readonly McpResource[];
  /** The cursor of the next page; absent on the last one. */
  readonly nextCursor?: string;
}

/** The argument a client asks completions for, and the others it already filled in. */
export interface McpCompletionRequest {
  /** The argument (prompt argument or template variable) being completed. */
  readonly name: string;
  /** What the user typed so far. */
  readonly value: string;
  /** The arguments already resolved, by name. */
  readonly arguments: Readonly<Record<string, string>>;
}

/** What `completion/complete` answers: at most 100 values are sent. */
export interface McpCompletion {
  /** The suggestions, best first. */
  readonly values: readonly string[];
  /** How many suggestions there are in all, when known. */
  readonly total?: number;
  /** Whether there are more than were sent. */
  readonly hasMore?: boolean;
}

/** The resources a server offers (`serveTools(registry, { resources })`). */
export interface McpResourceProvider {
  /** One page of resources, from `cursor` (absent: the first page). */
  list(
    cursor: string | undefined,
    info: McpRequestInfo,
  ): McpResourcePage | Promise<McpResourcePage>;
  /** The contents of `uri`; `undefined` when there is no such resource (answered `-32002`). */
  read(
    uri: string,
    info: McpRequestInfo,
  ):
    | readonly McpResourceContents[]
    | undefined
    | Promise<readonly McpResourceContents[] | undefined>;
  /** The URI templates; absent: none. */
  templates?(
    info: McpRequestInfo,
  ): readonly McpResourceTemplate[] | Promise<readonly McpResourceTemplate[]>;
  /** Completions of a variable of the template `uriTemplate`; absent: none. */
  complete?(
    uriTemplate: string,
    request: McpCompletionRequest,
    info: McpRequestInfo,
  ): McpCompletion | Promise<McpCompletion>;
}

/** An argument of a prompt. */
export interface McpPromptArgument {
  /** Its name. */
  readonly name: string;
  /** What it is for. */
  readonly description?: string;
  /** Whether the prompt needs it. */
  readonly required?: boolean;
}

/** A prompt as `prompts/list` lists it. */
export interface McpPrompt {
  /** Its name, what `prompts/get` is asked for. */
  readonly name: string;
  /** A human-readable title. */
  readonly title?: string;
  /** What it does. */
  readonly description?: string;
  /** Its arguments. */
  readonly arguments?: readonly McpPromptArgument[];
}

/** One content block of a prompt message. */
export type McpPromptContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'audio'; readonly data: string; readonly mimeType: string }
  | { readonly type: 'resource'; readonly resource: McpResourceContents };

/** One message of a prompt. */
export interface McpPromptMessage {
  /** Who says it. */
  readonly role: 'user' | 'assistant';
  /** What is said. */
  readonly content: McpPromptContent;
}

/** What `prompts/get` answers. */
export interface McpPromptResult {
  /** What the prompt is for. */
  readonly description?: string;
  /** The messages. */
  readonly messages: readonly McpPromptMessage[];
}

/** One page of `prompts/list`. */
export interface McpPromptPage {
  /** The prompts on this page. */
  readonly prompts: readonly McpPrompt[];
  /** The cursor of the next page; absent on the last one. */
  readonly nextCursor?: string;
}

/** The prompts a server offers (`serveTools(registry, { prompts })`). */
export interface McpPromptProvider {
  /** One page of prompts, from `cursor` (absent: the first page). */
  list(cursor: string | undefined, info: McpRequestInfo): McpPromptPage | Promise<McpPromptPage>;
  /**
   * The prompt `name` filled with `args`; `undefined` when there is no such prompt (answered
   * `-32602`). Throw a `TypeError` for arguments it cannot take (also answered `-32602`).
   */
  get(
    name: string,
    args: Readonly<Record<string, string>>,
    info: McpRequestInfo,
  ): McpPromptResult | undefined | Promise<McpPromptResult | undefined>;
  /** Completions of an argument of the prompt `name`; absent: none. */
  complete?(
    name: string,
    request: McpCompletionRequest,
    info: McpRequestInfo,
  ): McpCompletion | Promise<McpCompletion>;
}
