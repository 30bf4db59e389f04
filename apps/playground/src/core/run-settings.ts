import type { RunState } from '@agcore/llm-cycle';
import type { Permission } from '@agcore/tools-core';
import type { PermissionConfig } from '@agcore/tools-permission';
import type { DecisionFlags } from './decisions.js';
import type { ModelSettings } from './model-settings.js';
import type { Terminal } from './output.js';

/** How the CLI asked a flow to run. */
export interface RunSettings {
  readonly model: ModelSettings;
  readonly terminal: Terminal;
  readonly json: boolean;
  readonly policy: PermissionConfig;
  /** The permissions denied with `--deny` (a flow's own `allow` never lifts them). */
  readonly deny: readonly Permission[];
  readonly mcpConfigPath?: string;
  /** Print the history even when the run ended normally. */
  readonly showHistory: boolean;
  /** `--approve` / `--answer`: decisions for runs that cannot ask a person. */
  readonly decisions: DecisionFlags;
  /** Where a flow that saves its paused run writes it (`--state-file`). */
  readonly stateFile?: string;
  /** `--store`: the Postgres URL whose run store claims resumes (across processes). */
  readonly store?: string;
  /** A paused run to go on with (`resume FILE`). */
  readonly resume?: { readonly path: string; readonly state: RunState };
}
