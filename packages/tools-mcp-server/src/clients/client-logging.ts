/**
 * MCP logging for served tools: `context.log` as `notifications/message`, and the levels
 * `logging/setLevel` sets on 2025-11-25, kept per caller by this instance.
 */
import type { JsonValue, ToolLogLevel } from '@agcore/tools-core';
import type { McpCaller } from '../types.js';

const severity: Readonly<Record<ToolLogLevel, number>> = {
  debug: 0,
  info: 1,
  notice: 2,
  warning: 3,
  error: 4,
  critical: 5,
  alert: 6,
  emergency: 7,
};

/** The most callers whose level is remembered; the oldest is forgotten first. */
const maxRemembered = 1000;

/** Whether `value` is a log level. */
export function isLogLevel(value: unknown): value is ToolLogLevel {
  return typeof value === 'string' && Object.hasOwn(severity, value);
}

/**
 * The levels `logging/setLevel` set, by caller id (every anonymous caller shares one): a
 * stateless server has no session to keep them in, so this instance remembers them (another
 * instance of a fleet does not). Without a level, every message is sent.
 */
export class LogLevels {
  readonly #levels = new Map<string, ToolLogLevel>();

  /** Remembers `level` for `caller`. */
  set(caller: McpCaller | undefined, level: ToolLogLevel): void {
    const key = keyOf(caller);
    this.#levels.delete(key);
    this.#levels.set(key, level);
    if (this.#levels.size > maxRemembered) {
      const oldest = this.#levels.keys().next();
      if (oldest.done !== true) this.#levels.delete(oldest.value);
    }
  }

  /** Whether a message at `level` reaches `caller`. */
  passes(caller: McpCaller | undefined, level: ToolLogLevel): boolean {
    const floor = this.#levels.get(keyOf(caller));
    return floor === undefined || severity[level] >= severity[floor];
  }
}

function keyOf(caller: McpCaller | undefined): string {
  return caller === undefined ? '' : `id:${caller.id}`;
}

/** A `context.log` that sends what passes `passes` through `send`; never throws. */
export function toolLog(
  passes: (level: ToolLogLevel) => boolean,
  send: (level: ToolLogLevel, data: JsonValue) => Promise<void>,
): (level: ToolLogLevel, data: JsonValue) => void {
  return (level, data) => {
    if (!isLogLevel(level) || !passes(level)) return;
    try {
      void send(level, data).catch(() => undefined);
    } catch {
      // a closed stream: the message has nowhere to go
    }
  };
}
