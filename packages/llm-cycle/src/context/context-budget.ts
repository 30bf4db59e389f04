import type { BaseTool, ToolDefinition } from '@agcore/tools-core';
import type { ToolRegistry } from '@agcore/tools-registry';
import type { ChatMessage } from '../messages.js';
import type { Usage } from '../types.js';
import type { ResolvedClearing } from './budget-options.js';
import { BuiltinToolRegistry } from './builtin-registry.js';
import { ResultClearing } from './clear-old-results.js';
import { readResultTool } from './read-result.js';
import { breakdownOf, type RequestBreakdown, type SentRequest } from './request-breakdown.js';
import type { ResolvedSpill } from './spill.js';
import { type ResolvedToolSearch, searchToolsName, ToolSearch } from './tool-search.js';

/** What the context budget of a cycle is made of (all optional). */
export interface BudgetSettings {
  readonly spill: ResolvedSpill | undefined;
  readonly clearing: ResolvedClearing | undefined;
  readonly toolSearch: ResolvedToolSearch | undefined;
}

interface Tools {
  readonly registry: BuiltinToolRegistry;
  readonly search: ToolSearch | undefined;
}

/**
 * The context budget of one cycle: the built-in tools beside a user's registry (`read_result`
 * when spilling, `search_tools` with tool search), what each request sends (old results
 * cleared, the definitions tool search chooses), and the breakdown of the last request.
 */
export class ContextBudget {
  readonly #clearing: ResultClearing | undefined;
  readonly #tools = new WeakMap<ToolRegistry, Tools>();
  #last: SentRequest | undefined;

  constructor(private readonly settings: BudgetSettings) {
    this.#clearing =
      settings.clearing === undefined ? undefined : new ResultClearing(settings.clearing);
  }

  /** The registry a loop uses: the user's, with the built-ins beside it when any is on. */
  tools(registry: ToolRegistry): ToolRegistry {
    if (registry instanceof BuiltinToolRegistry) return registry;
    return this.#toolsOf(registry)?.registry ?? registry;
  }

  /**
   * What the next request sends of `history` (system prompt first) and which definitions:
   * `definitions` (the submit's), or with tool search on, the chosen ones.
   */
  request(
    history: readonly ChatMessage[],
    registry: ToolRegistry | undefined,
    definitions: readonly ToolDefinition[],
  ): { messages: readonly ChatMessage[]; definitions: readonly ToolDefinition[] } {
    const messages = this.#clearing === undefined ? history : this.#clearing.apply(history);
    const chosen = this.#definitions(history, registry, definitions);
    this.#last = { messages, definitions: chosen };
    return { messages, definitions: chosen };
  }

  /** The server's usage for the last request. */
  responded(usage: Usage | undefined): void {
    if (this.#last !== undefined) this.#last.usage = usage;
  }

  /** See `LlmCycle.lastRequestBreakdown`. */
  lastRequestBreakdown(): RequestBreakdown | undefined {
    return this.#last === undefined ? undefined : breakdownOf(this.#last);
  }

  #definitions(
    history: readonly ChatMessage[],
    registry: ToolRegistry | undefined,
    definitions: readonly ToolDefinition[],
  ): readonly ToolDefinition[] {
    if (this.settings.toolSearch === undefined || !(registry instanceof BuiltinToolRegistry)) {
      return definitions;
    }
    const search = this.#tools.get(registry.inner)?.search;
    if (search === undefined) return definitions;
    if (search.active()) return search.definitions(history, registry.ownDefinitions());
    return definitions.filter((definition) => definition.function.name !== searchToolsName);
  }

  #toolsOf(registry: ToolRegistry): Tools | undefined {
    const { spill, toolSearch } = this.settings;
    if (spill === undefined && toolSearch === undefined) return undefined;
    let tools = this.#tools.get(registry);
    if (tools === undefined) {
      const search = toolSearch === undefined ? undefined : new ToolSearch(registry, toolSearch);
      const builtins: BaseTool[] = [];
      if (spill !== undefined) builtins.push(readResultTool(spill.store, spill.readBytes));
      if (search !== undefined) builtins.push(search.tool());
      tools = { registry: new BuiltinToolRegistry(registry, builtins), search };
      this.#tools.set(registry, tools);
    }
    return tools;
  }
}
