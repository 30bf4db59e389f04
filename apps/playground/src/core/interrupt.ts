import { childPids, signalChildren } from './child-processes.js';

/**
 * Ctrl-C while something runs: the first press calls `onInterrupt` (cancel cleanly), a second
 * press calls `onForce` (give up waiting). Listens to SIGINT and SIGTERM on the process.
 */
export class Interrupt {
  #presses = 0;
  readonly #onInterrupt: (signal: NodeJS.Signals) => void;
  readonly #onForce: () => void;
  readonly #listener = (signal: NodeJS.Signals) => {
    this.#presses += 1;
    if (this.#presses === 1) this.#onInterrupt(signal);
    else this.#onForce();
  };

  /** Makes a handler; nothing listens until `install()`. */
  constructor(onInterrupt: (signal: NodeJS.Signals) => void, onForce: () => void) {
    this.#onInterrupt = onInterrupt;
    this.#onForce = onForce;
  }

  /** Starts listening. */
  install(): this {
    process.on('SIGINT', this.#listener);
    process.on('SIGTERM', this.#listener);
    return this;
  }

  /** Stops listening and forgets earlier presses. */
  uninstall(): void {
    process.off('SIGINT', this.#listener);
    process.off('SIGTERM', this.#listener);
    this.#presses = 0;
  }
}

/**
 * Kills right away (SIGKILL) the given processes and every other child of this process (an MCP
 * server still in its handshake is not known to its client yet); used when the user insists on
 * quitting. Only processes that are still children are signalled. Never throws.
 */
export function killNow(pids: readonly number[]): void {
  signalChildren([...pids, ...childPids()], 'SIGKILL');
}
