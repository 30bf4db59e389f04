import type { LlmCycle } from '@agcore/llm-cycle';
import type { ModelSettings } from '../core/model-settings.js';
import type { Terminal } from '../core/output.js';
import type { PlaygroundSession } from '../core/session.js';
import type { ChatConsole } from './chat-console.js';
import type { PrettyTimeline } from './timeline.js';

/** What a chat session's parts share: its console, its session and the state that changes. */
export interface ChatState {
  readonly terminal: Terminal;
  readonly model: ModelSettings;
  readonly session: PlaygroundSession;
  readonly console: ChatConsole;
  /** The permissions `--allow` and `/allow` gave (`/deny` takes them out). */
  readonly allow: string[];
  readonly deny: string[];
  /** Makes a new conversation (`/clear`). */
  readonly makeCycle: () => LlmCycle;
  cycle: LlmCycle;
  /** The running turn, if any. */
  turn: AbortController | undefined;
  /** The running turn's timeline: notes go through it, above any live progress bar. */
  turnTimeline: PrettyTimeline | undefined;
  /** Ctrl-C presses at the prompt since the last line read. */
  promptInterrupts: number;
  /** The session ends after the current line. */
  ended: boolean;
  /** SIGTERM ended the session. */
  terminated: boolean;
}
