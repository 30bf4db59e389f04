/**
 * The library a bench runs, loaded from the built packages of a library root (a checkout: the
 * working tree, or the temporary worktree `pnpm bench:compare <ref>` builds), so that two
 * versions can be compared in one process. See docs/benchmarks.md.
 */
import { importLibrary } from '@agcore/bench-method';
import type * as Core from '@agcore/tools-core';
import type * as Registry from '@agcore/tools-registry';
import type * as Cycle from '../../index.js';
import { registryFrom } from './conversation.js';

/** What the cycle bench uses of one checkout. */
export interface Library {
  /** The checkout. */
  readonly root: string;
  readonly LlmCycle: typeof Cycle.LlmCycle;
  readonly createOpenAICompatibleProvider: typeof Cycle.createOpenAICompatibleProvider;
  /** The bench's tools in that checkout's registry; `approveTime`: `get_time` needs approval. */
  readonly registry: (approveTime?: boolean) => Registry.ToolRegistry;
}

async function load<T>(root: string, specifier: string): Promise<T> {
  const module = await importLibrary<T>(root, specifier);
  if (module === undefined) throw new Error(`${root} exports no ${specifier}`);
  return module;
}

/** The library of `root`. */
export async function loadLibrary(root: string): Promise<Library> {
  const [cycle, core, registry] = await Promise.all([
    load<typeof Cycle>(root, '@agcore/llm-cycle'),
    load<typeof Core>(root, '@agcore/tools-core'),
    load<typeof Registry>(root, '@agcore/tools-registry'),
  ]);
  return {
    root,
    LlmCycle: cycle.LlmCycle,
    createOpenAICompatibleProvider: cycle.createOpenAICompatibleProvider,
    registry: (approveTime = false) => registryFrom(core, registry, approveTime),
  };
}
