/**
 * Serves the resource and prompt providers for both eras: the permission policy, the error codes
 * and the bounds, with no SDK type in sight (each era maps `OfferingError` to its own error).
 */
import { createRedactor, describeThrown, type Redactor, truncateUtf8 } from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import type {
  McpCompletion,
  McpPromptProvider,
  McpRequestInfo,
  McpResourceProvider,
} from '../offerings.js';
import type { ServeToolsOptions } from '../types.js';

/** The JSON-RPC codes a resource or prompt request is refused with. */
export const offeringErrorCode = {
  /** The server's permission policy refuses reading (`read`). */
  denied: -32003,
  /** No resource has this URI (2025-11-25; the 2026-07-28 SDK sends `-32602` with `data.uri`). */
  resourceNotFound: -32002,
  /** No such prompt, or arguments / a cursor the provider refused with a `TypeError`. */
  invalidParams: -32602,
  /** The provider threw anything else. */
  internal: -32603,
} as const;

/** A refused resource or prompt request, as a JSON-RPC error. */
export class OfferingError extends Error {
  readonly code: number;
  readonly data: Record<string, unknown> | undefined;

  constructor(code: number, message: string, data?: Record<string, unknown>) {
    super(message);
    this.name = 'OfferingError';
    this.code = code;
    this.data = data;
  }
}

/** A `completion/complete` reference: a prompt by name or a resource template by URI template. */
export type CompletionRef =
  | { readonly type: 'ref/prompt'; readonly name: string }
  | { readonly type: 'ref/resource'; readonly uri: string };

const maxMessageBytes = 8192;
const maxCompletionValues = 100;

/** The served resources and prompts of one `serveTools` server. */
export class Offerings {
  readonly resources: McpResourceProvider | undefined;
  readonly prompts: McpPromptProvider | undefined;
  readonly #registry: ToolRegistry;
  readonly #redact: Redactor | undefined;

  constructor(registry: ToolRegistry, options: ServeToolsOptions) {
    this.#registry = registry;
    this.resources = options.resources;
    this.prompts = options.prompts;
    this.#redact = options.secrets === undefined ? undefined : createRedactor(options.secrets);
  }

  /** Whether anything beside tools is served. */
  get any(): boolean {
    return this.resources !== undefined || this.prompts !== undefined;
  }

  /**
   * The server capabilities for what is served (both eras take the same shape): `listChanged`
   * when changes are announced (an `eventBus` or `changes`), `subscribe` when updates of one
   * resource reach the client too (2026-07-28 `subscriptions/listen` only).
   */
  capabilities(announced: { readonly listChanged: boolean; readonly subscribe: boolean }): {
    resources?: { listChanged?: true; subscribe?: true };
    prompts?: { listChanged?: true };
    completions?: Record<string, never>;
  } {
    const listChanged = announced.listChanged ? { listChanged: true as const } : {};
    const subscribe = announced.subscribe ? { subscribe: true as const } : {};
    return {
      ...(this.resources === undefined ? {} : { resources: { ...listChanged, ...subscribe } }),
      ...(this.prompts === undefined ? {} : { prompts: listChanged }),
      ...(this.any ? { completions: {} } : {}),
    };
  }

  /** `resources/list`. */
  listResources(cursor: string | undefined, info: McpRequestInfo) {
    return this.#serve('resources/list', async (resources) => {
      const page = await resources.list(cursor, info);
      return {
        resources: [...page.resources],
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      };
    });
  }

  /** `resources/templates/list` (one page: templates are few). */
  listResourceTemplates(info: McpRequestInfo) {
    return this.#serve('resources/templates/list', async (resources) => ({
      resourceTemplates: [...((await resources.templates?.(info)) ?? [])],
    }));
  }

  /** `resources/read`: `-32002` for an unknown URI. */
  readResource(uri: string, info: McpRequestInfo) {
    return this.#serve('resources/read', async (resources) => {
      const contents = await resources.read(uri, info);
      if (contents === undefined) {
        throw new OfferingError(offeringErrorCode.resourceNotFound, `Resource not found: ${uri}`, {
          uri,
        });
      }
      return { contents: [...contents] };
    });
  }

  /** `prompts/list`. */
  listPrompts(cursor: string | undefined, info: McpRequestInfo) {
    return this.#servePrompts('prompts/list', async (prompts) => {
      const page = await prompts.list(cursor, info);
      return {
        prompts: page.prompts.map(({ arguments: args, ...prompt }) => ({
          ...prompt,
          ...(args === undefined ? {} : { arguments: [...args] }),
        })),
        ...(page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor }),
      };
    });
  }

  /** `prompts/get`: `-32602` for an unknown prompt or arguments it cannot take. */
  getPrompt(name: string, args: Readonly<Record<string, string>>, info: McpRequestInfo) {
    return this.#servePrompts('prompts/get', async (prompts) => {
      const result = await prompts.get(name, args, info);
      if (result === undefined)
        throw new OfferingError(offeringErrorCode.invalidParams, `Prompt not found: ${name}`);
      return {
        ...(result.description === undefined ? {} : { description: result.description }),
        messages: [...result.messages],
      };
    });
  }

  /** `completion/complete` for a prompt argument or a template variable; none: empty values. */
  async complete(
    ref: CompletionRef,
    argument: { readonly name: string; readonly value: string },
    resolved: Readonly<Record<string, string>> | undefined,
    info: McpRequestInfo,
  ): Promise<{ completion: { values: string[]; total?: number; hasMore?: boolean } }> {
    const request = { name: argument.name, value: argument.value, arguments: resolved ?? {} };
    const method = 'completion/complete';
    const completion: McpCompletion | undefined =
      ref.type === 'ref/prompt'
        ? await this.#servePrompts(method, async (prompts) =>
            prompts.complete?.(ref.name, request, info),
          )
        : await this.#serve(method, async (resources) =>
            resources.complete?.(ref.uri, request, info),
          );
    const values = [...(completion?.values ?? [])].slice(0, maxCompletionValues);
    return {
      completion: {
        values,
        ...(completion?.total === undefined ? {} : { total: completion.total }),
        ...(completion?.hasMore === undefined ? {} : { hasMore: completion.hasMore }),
      },
    };
  }

  #serve<T>(method: string, run: (resources: McpResourceProvider) => Promise<T>): Promise<T> {
    const resources = this.resources;
    if (resources === undefined) {
      return Promise.reject(
        new OfferingError(offeringErrorCode.invalidParams, `This server serves no resources.`),
      );
    }
    return this.#guarded(method, 'resources', () => run(resources));
  }

  #servePrompts<T>(method: string, run: (prompts: McpPromptProvider) => Promise<T>): Promise<T> {
    const prompts = this.prompts;
    if (prompts === undefined) {
      return Promise.reject(
        new OfferingError(offeringErrorCode.invalidParams, `This server serves no prompts.`),
      );
    }
    return this.#guarded(method, 'prompts', () => run(prompts));
  }

  /** The permission check, then `run`; what it throws becomes an `OfferingError`. */
  async #guarded<T>(method: string, what: string, run: () => Promise<T>): Promise<T> {
    const checker = this.#registry.permissionChecker;
    if (checker !== undefined && !checker.isAllowed(method, ['read'])) {
      throw new OfferingError(
        offeringErrorCode.denied,
        `Permission denied: ${method} reads ${what}, which needs the 'read' permission, and this server's permission policy refuses it.`,
      );
    }
    try {
      return await run();
    } catch (error) {
      if (error instanceof OfferingError) throw this.#scrubbed(error);
      if (error instanceof TypeError)
        throw this.#scrubbed(new OfferingError(offeringErrorCode.invalidParams, error.message));
      throw this.#scrubbed(
        new OfferingError(
          offeringErrorCode.internal,
          `Serving ${method} failed: ${describeThrown(error)}`,
        ),
      );
    }
  }

  #scrubbed(error: OfferingError): OfferingError {
    const message = this.#redact === undefined ? error.message : this.#redact(error.message);
    const bounded = truncateUtf8(message, maxMessageBytes).text;
    return bounded === error.message ? error : new OfferingError(error.code, bounded, error.data);
  }
}
