import type { ToolProgress } from '@agcore/tools-core';
import cliProgress from 'cli-progress';
import { type Colors, formatDuration, type Terminal } from '../core/output.js';

const wrapOn = '\u001b[?7h';
const wrapOff = '\u001b[?7l';
const clearBelow = '\u001b[J';

interface BarPayload {
  readonly label: string;
  readonly detail: string;
  readonly startedAt: number;
}

/**
 * Live progress bars (cli-progress) for the tool calls that are running, one bar per call,
 * driven by `tool_execution_progress` events (MCP progress notifications end up there). Only
 * drawn on an interactive terminal; the timeline prints plain lines otherwise.
 */
export class ProgressDisplay {
  readonly #terminal: Terminal;
  readonly #colors: Colors;
  #multibar: cliProgress.MultiBar | undefined;
  readonly #bars = new Map<string, cliProgress.SingleBar>();

  /** Makes a display that writes to `terminal.out`. Never throws. */
  constructor(terminal: Terminal) {
    this.#terminal = terminal;
    this.#colors = terminal.colors;
  }

  /** Whether any bar is on screen. */
  get active(): boolean {
    return this.#bars.size > 0;
  }

  /** Shows a bar for a call that started running. Never throws. */
  start(callId: string, toolName: string): void {
    if (this.#bars.has(callId)) return;
    const colors = this.#colors;
    const multibar =
      this.#multibar ??
      new cliProgress.MultiBar({
        stream: this.#terminal.out,
        clearOnComplete: true,
        hideCursor: true,
        barsize: 24,
        barCompleteChar: '█',
        barIncompleteChar: '░',
        fps: 12,
        format: (options, params, payload: BarPayload) => {
          const size = options.barsize ?? 24;
          const elapsed = formatDuration(performance.now() - payload.startedAt);
          if (params.total <= 0) {
            const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
            const frame = frames[Math.floor(performance.now() / 90) % frames.length] ?? '⠋';
            return `  ${colors.cyan(frame)} ${payload.label} ${colors.dim(`running ${elapsed}`)}${payload.detail}`;
          }
          const ratio = Math.min(1, Math.max(0, params.value / params.total));
          const filled = Math.round(ratio * size);
          const bar = `${'█'.repeat(filled)}${'░'.repeat(size - filled)}`;
          return `  ${colors.cyan('⏵')} ${payload.label} ${colors.cyan(bar)} ${String(Math.round(ratio * 100)).padStart(3)}% ${colors.dim(`${params.value}/${params.total} · ${elapsed}`)}${payload.detail}`;
        },
      });
    this.#multibar = multibar;
    const bar = multibar.create(0, 0, {
      label: toolName,
      detail: '',
      startedAt: performance.now(),
    } satisfies BarPayload);
    this.#bars.set(callId, bar);
  }

  /** Moves a call's bar. Never throws. */
  update(callId: string, toolName: string, progress: ToolProgress): void {
    if (!this.#bars.has(callId)) this.start(callId, toolName);
    const bar = this.#bars.get(callId);
    if (bar === undefined) return;
    const total = progress.total ?? 100;
    bar.setTotal(total);
    bar.update(progress.progress, {
      detail: progress.message === undefined ? '' : this.#colors.dim(` ${progress.message}`),
    });
  }

  /** Prints `line` above the bars (or plainly when there are none). Never throws. */
  log(line: string): void {
    if (this.#multibar === undefined) {
      this.#terminal.out.write(`${line}\n`);
      return;
    }
    // cli-progress turns the terminal's line wrap off while bars are drawn (a bar must stay on
    // one row), which would cut a long line at the terminal's edge. A logged line is written
    // above the bars with wrap on again, after clearing what is below (the bars are redrawn).
    this.#multibar.log(`${wrapOn}${clearBelow}${line}\n${wrapOff}`);
    this.#multibar.update();
  }

  /** Removes a finished call's bar; the display stops when the last one goes. Never throws. */
  finish(callId: string): void {
    const bar = this.#bars.get(callId);
    if (bar === undefined || this.#multibar === undefined) return;
    this.#bars.delete(callId);
    this.#multibar.remove(bar);
    if (this.#bars.size === 0) this.stop();
  }

  /** Clears every bar (on completion, error or Ctrl-C). Safe to call twice; never throws. */
  stop(): void {
    const multibar = this.#multibar;
    this.#multibar = undefined;
    this.#bars.clear();
    multibar?.stop();
  }
}
