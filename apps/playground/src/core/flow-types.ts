import type { JsonObject, Permission } from '@agcore/tools-core';
import type { BundledServer } from './bundled-servers.js';
import type { RunSettings } from './run-settings.js';

/** One tool call in a scripted model answer. `arguments` as a string is sent verbatim. */
export interface ScriptedToolCall {
  readonly name: string;
  readonly arguments: JsonObject | string;
}

/** One scripted model answer: text, tool calls, or both. */
export interface ScriptedTurn {
  readonly text?: string;
  readonly toolCalls?: readonly ScriptedToolCall[];
}

/** What a flow's script may depend on. */
export interface FlowContext {
  /** The sandbox directory (the file tools' root). */
  readonly sandboxDir: string;
  /** Whether the permission policy in force allows a tool that needs these permissions. */
  readonly allows: (permissions: readonly Permission[]) => boolean;
  /** Whether this run goes on with a paused run from a file (`resume FILE`). */
  readonly resuming: boolean;
}

/** How a flow ends when everything works as intended. */
export type FlowExpectation =
  | 'complete'
  | 'permission_denied'
  | 'max_turns_exceeded'
  | 'loop_detected'
  | 'paused'
  | 'cancelled'
  | 'any';

/** A demo: a prompt, the tools it needs, and what the scripted model answers. */
export interface Flow {
  /** The name given to `--flow`. */
  readonly name: string;
  /** One line for `--list`. */
  readonly summary: string;
  /** The bundled MCP servers the flow starts. */
  readonly servers: readonly BundledServer[];
  /** The user's prompt (also what a real model receives). */
  prompt(context: FlowContext): string;
  /** The scripted model's answers, in order. */
  script(context: FlowContext): ScriptedTurn[];
  /** How the loop is expected to end (the exit code is 0 then). */
  expects(context: FlowContext): FlowExpectation;
  /** Overrides of the cycle's limits. */
  readonly maxTurns?: number;
  readonly toolTimeoutMs?: number;
  readonly maxToolResultBytes?: number;
  /** A line printed before the run (what to do, what to watch). */
  readonly note?: string;
  /**
   * Permissions the flow allows on top of the policy, unless `--deny` names them: a flow whose
   * tool is guarded by a person instead (`approve` allows `delete`; each call is approved).
   */
  readonly allow?: readonly Permission[];
  /** The run pauses and its state is written to a file for `resume` (the `resume` flow). */
  readonly savesState?: boolean;
  /**
   * Runs the flow its own way instead of in this process (`durable`: a worker process and an
   * approving one); resolves to the exit code.
   */
  readonly run?: (settings: RunSettings) => Promise<number>;
  /** A line printed after the run, given how it ended. */
  hint?(context: FlowContext, outcome: FlowExpectation | 'failed'): string | undefined;
}
