import { type BaseTool, defineTool, type ToolDefinition } from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import type { ChatMessage } from '../messages.js';
import { Bm25Index } from './bm25.js';

/** The name of the built-in tool that finds tools. */
export const searchToolsName = 'search_tools';

/** `toolSearch`: past a threshold, tools are found on demand instead of all sent every turn. */
export interface ToolSearchOptions {
  /** More tools than this (a number), or more bytes of definitions' JSON (`{ bytes }`), turns search on. */
  readonly threshold: number | { readonly bytes: number };
  /** Tools always sent: names, tags or categories of the registry. */
  readonly alwaysOn?: readonly string[];
  /** The most definitions one `search_tools` call returns (default 5). */
  readonly maxResults?: number;
}

/** Tool search, resolved. */
export interface ResolvedToolSearch {
  readonly count: number;
  readonly bytes: number;
  readonly alwaysOn: readonly string[];
  readonly maxResults: number;
}

/**
 * Checks `toolSearch` and fills in the defaults (`undefined`: off).
 * @throws {RangeError} for a threshold or `maxResults` out of range
 * @throws {TypeError} for an `alwaysOn` that is not an array of strings
 */
export function resolveToolSearch(
  option: ToolSearchOptions | undefined,
): ResolvedToolSearch | undefined {
  if (option === undefined) return undefined;
  const threshold = option?.threshold;
  const count = typeof threshold === 'number' ? threshold : Number.POSITIVE_INFINITY;
  const bytes =
    typeof threshold === 'object' && threshold !== null
      ? threshold.bytes
      : Number.POSITIVE_INFINITY;
  if (
    !(count >= 0) ||
    !(bytes >= 0) ||
    (count === Number.POSITIVE_INFINITY && bytes === Number.POSITIVE_INFINITY)
  ) {
    throw new RangeError(
      'LlmCycle: toolSearch.threshold must be a number of tools >= 0 or { bytes } >= 0.',
    );
  }
  const alwaysOn = option.alwaysOn ?? [];
  if (!Array.isArray(alwaysOn) || alwaysOn.some((name) => typeof name !== 'string')) {
    throw new TypeError(
      'LlmCycle: toolSearch.alwaysOn must be an array of tool names, tags or categories.',
    );
  }
  const maxResults = option.maxResults ?? 5;
  if (!Number.isSafeInteger(maxResults) || maxResults < 1) {
    throw new RangeError(
      `LlmCycle: toolSearch.maxResults must be an integer >= 1, got ${String(maxResults)}.`,
    );
  }
  return { count, bytes, alwaysOn: [...alwaysOn], maxResults };
}

interface Indexed {
  readonly definitions: readonly ToolDefinition[];
  readonly index: Bm25Index;
  readonly bytes: number;
}

/**
 * Tool search over one user registry: whether it is on (past the threshold), the
 * `search_tools` tool, and the definitions a request sends (always-on, found, built-ins).
 */
export class ToolSearch {
  #indexed: Indexed | undefined;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly options: ResolvedToolSearch,
  ) {}

  /** Whether the registry is past the threshold now. */
  active(): boolean {
    const { definitions, bytes } = this.#index();
    return definitions.length > this.options.count || bytes > this.options.bytes;
  }

  /** The built-in `search_tools({ query })`. */
  tool(): BaseTool {
    return defineTool({
      name: searchToolsName,
      description:
        'Finds tools by what they do: returns the definitions of the best matches (name, description, parameters). Tools found can be called from the next turn on.',
      parameters: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            minLength: 1,
            description: 'Words for what the tool should do or act on.',
          },
        },
        required: ['query'],
        additionalProperties: false,
      },
      execute: async ({ query }: { query: string }) => this.search(query),
    }) as BaseTool;
  }

  /** The `search_tools` answer: `{ tools: [definition...] }` as JSON, or why none matched. */
  search(query: string): string {
    const { definitions, index } = this.#index();
    const found = index
      .search(query, this.options.maxResults)
      .map((position) => definitions[position]?.function);
    if (found.length === 0) {
      return `No tool matches ${JSON.stringify(query)}. Try other words: what the tool acts on, or its verb.`;
    }
    return JSON.stringify({ tools: found });
  }

  /**
   * What a request sends when search is on: the always-on tools, the tools found by the
   * `search_tools` calls in `history` that are still registered, then `builtins`.
   */
  definitions(
    history: readonly ChatMessage[],
    builtins: readonly ToolDefinition[],
  ): ToolDefinition[] {
    const wanted = foundNames(history);
    const { alwaysOn } = this.options;
    const chosen = this.registry
      .listEntries()
      .filter(
        (entry) =>
          wanted.has(entry.tool.name) ||
          alwaysOn.includes(entry.tool.name) ||
          alwaysOn.includes(entry.category) ||
          entry.tags.some((tag) => alwaysOn.includes(tag)),
      );
    const names = new Set(chosen.map((entry) => entry.tool.name));
    const own = this.#index().definitions.filter((definition) =>
      names.has(definition.function.name),
    );
    return [...own, ...builtins];
  }

  #index(): Indexed {
    const definitions = this.registry.definitions();
    const known = this.#indexed;
    if (
      known !== undefined &&
      known.definitions.length === definitions.length &&
      known.definitions.every((definition, position) => definition === definitions[position])
    ) {
      return known;
    }
    const index = new Bm25Index(
      definitions.map(({ function: tool }) => [
        tool.name,
        tool.name,
        tool.name,
        tool.description,
        ...parameterTexts(tool.parameters),
      ]),
    );
    const bytes = new TextEncoder().encode(JSON.stringify(definitions)).length;
    this.#indexed = { definitions, index, bytes };
    return this.#indexed;
  }
}

function parameterTexts(schema: unknown): string[] {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  return Object.entries(properties).flatMap(([name, property]) => {
    const description = (property as { description?: unknown } | null)?.description;
    return typeof description === 'string' ? [name, description] : [name];
  });
}

const foundCache = new WeakMap<ChatMessage, readonly string[]>();

/** The names returned by the `search_tools` calls of `history` (their tool messages). */
function foundNames(history: readonly ChatMessage[]): Set<string> {
  const searches = new Set<string>();
  const names = new Set<string>();
  for (const message of history) {
    if (message.role === 'assistant') {
      for (const call of message.tool_calls ?? [])
        if (call.function.name === searchToolsName) searches.add(call.id);
    } else if (message.role === 'tool' && searches.has(message.tool_call_id)) {
      for (const name of namesIn(message)) names.add(name);
    }
  }
  return names;
}

function namesIn(message: ChatMessage & { role: 'tool' }): readonly string[] {
  let names = foundCache.get(message);
  if (names === undefined) {
    try {
      const parsed = JSON.parse(message.content) as { tools?: { name?: unknown }[] };
      names = (parsed.tools ?? []).flatMap((tool) =>
        typeof tool.name === 'string' ? [tool.name] : [],
      );
    } catch {
      names = []; // Not a list of tools: the search found none (or the message was cut).
    }
    foundCache.set(message, names);
  }
  return names;
}
