import type { AnyTool } from '@agcore/tools-core';

/** Running totals of one tool's invocations, updated by every `invoke`. */
export interface ToolStats {
  /** Invocations, successful or not (a tool refused or never found is not counted). */
  calls: number;
  /** Invocations whose output is an error (a tool that asks for input with `awaitInput` is not one). */
  failures: number;
  /** Milliseconds spent in all invocations, checks included. */
  totalDurationMs: number;
  /** Milliseconds of the latest invocation, or `undefined` before the first. */
  lastDurationMs: number | undefined;
}

/** What you may attach to a tool when registering it. */
export interface ToolMeta {
  /** Free-form labels, for `findByTag`. */
  readonly tags?: readonly string[];
  /** One category, for `findByCategory` and `groups`; default `'general'`. */
  readonly category?: string;
  /** The tool's version, for your own bookkeeping. */
  readonly version?: string;
}

/** A registered tool with its metadata and statistics. */
export interface ToolEntry {
  /** The tool. */
  readonly tool: AnyTool;
  /** Its tags (possibly empty). */
  readonly tags: readonly string[];
  /** Its category (`'general'` unless given). */
  readonly category: string;
  /** Its version, when given. */
  readonly version?: string;
  /** Invocation statistics; `averageDurationMs` is `totalDurationMs / calls`. */
  readonly stats: ToolStats;
}
