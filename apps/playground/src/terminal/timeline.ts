import type { StreamEvent } from '@agcore/llm-cycle';
import type { ToolError } from '@agcore/tools-core';
import { cut, displayJson, formatDuration, type Terminal } from '../core/output.js';
import { countEvent, type RunStats } from '../core/run-stats.js';
import { ProgressDisplay } from './progress-display.js';

/** The stream event of one type. */
type EventOf<T extends StreamEvent['type']> = Extract<StreamEvent, { type: T }>;

/** Writes the events of one or more runs as a readable timeline (or JSON lines). */
export interface Timeline {
  /** Handles one event of `submitStreamWithTools`, counting it in `stats`. */
  event(event: StreamEvent, stats: RunStats): void;
  /** Prints a line of the playground's own (headers, notes, errors), above any progress bar. */
  line(text: string): void;
  /** Ends the current output cleanly (bars cleared, text line closed). */
  settle(): void;
}

/** One JSON object per line, for scripts: the events as the cycle gives them. */
export class JsonTimeline implements Timeline {
  readonly #terminal: Terminal;

  /** Makes a JSON-lines timeline on `terminal.out`. */
  constructor(terminal: Terminal) {
    this.#terminal = terminal;
  }

  /** Writes the event as one line (a `ToolError` as its `toJSON()` form). */
  event(event: StreamEvent, stats: RunStats): void {
    countEvent(event, stats);
    this.write(event);
  }

  /** Writes any playground record (`run_started`, `run_finished`, ...) as one line. */
  write(record: object): void {
    this.#terminal.out.write(`${JSON.stringify(record)}\n`);
  }

  /** JSON mode prints no free text on stdout; notes go to stderr. */
  line(text: string): void {
    this.#terminal.err.write(`${text}\n`);
  }

  /** Nothing to settle. */
  settle(): void {}
}

/** Options of `PrettyTimeline`. */
export interface PrettyTimelineOptions {
  /** Characters of a result shown before it is cut. Default: fits the terminal width. */
  readonly resultWidth?: number;
  /**
   * The run goes on after a pause that happened after this many model turns (another process
   * paused it): the resumed calls belong to that turn, and numbering goes on from it.
   */
  readonly resumedAfterTurns?: number;
}

/**
 * The human timeline: the assistant's text as it streams, each tool call with its arguments,
 * live progress bars while tools run (plain progress lines when not on a terminal), each
 * result (cut) with its duration, and turn boundaries.
 */
export class PrettyTimeline implements Timeline {
  readonly #terminal: Terminal;
  readonly #progress: ProgressDisplay | undefined;
  readonly #resultWidth: number;
  #turn = 0;
  #turnOpen = false;
  /** The run paused after the last turn: its calls resume under that turn, not a new one. */
  #resuming = false;
  /** What the current line streams: the assistant's text, its reasoning, or nothing. */
  #inText: 'text' | 'reasoning' | undefined;
  readonly #pending = new Map<string, string>();
  readonly #lastPlainProgress = new Map<string, number>();

  /** Makes a timeline on `terminal`. Never throws. */
  constructor(terminal: Terminal, options: PrettyTimelineOptions = {}) {
    this.#terminal = terminal;
    this.#progress = terminal.interactive ? new ProgressDisplay(terminal) : undefined;
    if (options.resumedAfterTurns !== undefined) {
      this.#turn = options.resumedAfterTurns;
      this.#resuming = true;
    }
    this.#resultWidth =
      options.resultWidth ??
      (terminal.interactive ? Math.max(40, Math.min(terminal.columns, 180) - 24) : 120);
  }

  /** Renders one event. Never throws. */
  event(event: StreamEvent, stats: RunStats): void {
    countEvent(event, stats);
    const c = this.#terminal.colors;
    switch (event.type) {
      case 'assistant_text_delta':
        this.#text('text', `${c.bold(c.magenta('assistant'))} ${c.dim('›')} `, event.text);
        return;
      case 'assistant_reasoning_delta':
        this.#text('reasoning', `${c.dim('thinking ›')} `, c.dim(event.text));
        return;
      case 'tool_call_delta':
        // The call is shown whole at tool_execution_started; deltas are for --json.
        this.#openTurn();
        return;
      case 'tool_execution_started':
        this.#toolStarted(event);
        return;
      case 'tool_approval_requested': {
        this.#endText();
        const input = cut(displayJson(event.input), this.#resultWidth);
        this.line(
          `  ${c.yellow('⏸')} ${c.bold(event.toolName)} ${input} ${c.dim(event.callId)} ${c.yellow('waits for approval')}`,
        );
        return;
      }
      case 'tool_input_requested':
        this.#endText();
        this.line(
          `  ${c.yellow('?')} ${c.bold(event.toolName)} ${c.dim(event.callId)} asks: ${event.prompt}`,
        );
        return;
      case 'turn_complete':
        this.#turnComplete(event);
        return;
      case 'tool_execution_progress':
        this.#toolProgress(event);
        return;
      case 'tool_execution_completed':
        this.#toolCompleted(event);
        return;
    }
  }

  /** A text or reasoning delta: opens its line (with `head`) when another kind was open. */
  #text(kind: 'text' | 'reasoning', head: string, text: string): void {
    this.#openTurn();
    if (this.#inText !== kind) {
      this.#endText();
      this.#write(head);
      this.#inText = kind;
    }
    this.#write(text);
  }

  #toolStarted(event: EventOf<'tool_execution_started'>): void {
    const c = this.#terminal.colors;
    if (this.#resuming) this.#progress?.start(event.callId, event.toolName);
    else this.#openTurn();
    this.#endText();
    this.#pending.set(event.callId, event.toolName);
    const input =
      typeof event.input === 'string'
        ? `${c.red('(not JSON)')} ${cut(event.input, this.#resultWidth)}`
        : cut(displayJson(event.input), this.#resultWidth);
    this.line(`  ${c.yellow('→')} ${c.bold(event.toolName)} ${input} ${c.dim(event.callId)}`);
  }

  #turnComplete(event: EventOf<'turn_complete'>): void {
    const c = this.#terminal.colors;
    if (event.reason === 'interrupted' || event.reason === 'stopped') {
      this.#endText();
      this.#resuming = event.reason === 'interrupted';
      this.line(
        c.dim(
          event.reason === 'interrupted'
            ? '  ⏸ the run paused: it waits for a decision'
            : '  ■ a stop condition ended the run',
        ),
      );
      return;
    }
    this.#openTurn();
    this.#endText();
    const usage =
      event.usage === undefined
        ? ''
        : ` · ${event.usage.promptTokens} prompt + ${event.usage.completionTokens} completion tokens`;
    this.line(c.dim(`  ⏎ turn ${this.#turn} complete: ${event.reason}${usage}`));
    this.#turnOpen = false;
    if (event.reason === 'tool_calls' && this.#progress !== undefined) {
      for (const [callId, toolName] of this.#pending) this.#progress.start(callId, toolName);
    }
  }

  #toolProgress(event: EventOf<'tool_execution_progress'>): void {
    const c = this.#terminal.colors;
    const { progress } = event;
    if (this.#progress !== undefined) {
      this.#progress.update(event.callId, event.toolName, progress);
      return;
    }
    // Not a terminal: a plain line, at most one a second per call (and always the last).
    const now = performance.now();
    const last = this.#lastPlainProgress.get(event.callId);
    const done = progress.total !== undefined && progress.progress >= progress.total;
    if (last !== undefined && now - last < 1000 && !done) return;
    this.#lastPlainProgress.set(event.callId, now);
    const amount =
      progress.total === undefined
        ? `${progress.progress}`
        : `${progress.progress}/${progress.total} (${Math.round((progress.progress / progress.total) * 100)}%)`;
    const message = progress.message === undefined ? '' : ` ${progress.message}`;
    this.line(`  ${c.cyan('…')} ${event.toolName} progress ${amount}${message}`);
  }

  #toolCompleted(event: EventOf<'tool_execution_completed'>): void {
    const c = this.#terminal.colors;
    this.#pending.delete(event.callId);
    this.#lastPlainProgress.delete(event.callId);
    const duration = c.dim(formatDuration(event.durationMs));
    let text: string;
    if (event.error !== undefined) {
      text = `  ${c.red('✗')} ${c.bold(event.toolName)} ${duration} ${c.red(describeToolError(event.error))}`;
    } else {
      const result = cut(displayJson(event.output), this.#resultWidth);
      text = `  ${c.green('✓')} ${c.bold(event.toolName)} ${duration} ${result}`;
    }
    if (event.truncated) {
      text += c.yellow(' [cut to maxToolResultBytes for the model; the event has it whole]');
    }
    this.line(text);
    this.#progress?.finish(event.callId);
  }

  /** Prints a line above any progress bar, closing a text line first. Never throws. */
  line(text: string): void {
    this.#endText();
    if (this.#progress?.active === true) this.#progress.log(text);
    else this.#terminal.out.write(`${text}\n`);
  }

  /** Clears the bars and closes an open text line. Never throws. */
  settle(): void {
    this.#progress?.stop();
    this.#pending.clear();
    this.#endText();
  }

  #openTurn(): void {
    this.#resuming = false;
    if (this.#turnOpen) return;
    this.#turnOpen = true;
    this.#turn += 1;
    const c = this.#terminal.colors;
    this.line(c.dim(`── turn ${this.#turn} ${'─'.repeat(40)}`));
  }

  #write(text: string): void {
    this.#terminal.out.write(text);
  }

  #endText(): void {
    if (this.#inText === undefined) return;
    this.#inText = undefined;
    this.#terminal.out.write('\n');
  }
}

/** `code: message` of a tool error, for one line. Never throws. */
export function describeToolError(error: ToolError): string {
  return `${error.code}: ${error.message}`;
}
