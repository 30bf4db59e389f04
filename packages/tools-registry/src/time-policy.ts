import type { InvokeOptions, TimePolicy, ToolRegistryOptions } from './options.js';

type TimeOptions = Pick<
  InvokeOptions,
  'timeoutMs' | 'resetTimeoutOnProgress' | 'maxTotalTimeoutMs'
>;

function milliseconds(value: unknown, what: string): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value < 0) {
    throw new TypeError(`${what} must be a number of milliseconds >= 0, got ${String(value)}.`);
  }
  return value === 0 ? Number.POSITIVE_INFINITY : value;
}

function pick<K extends keyof TimeOptions>(
  call: TimeOptions,
  registry: ToolRegistryOptions,
  key: K,
): [TimeOptions[K], string] {
  return call[key] === undefined
    ? [registry[key], `ToolRegistryOptions.${key}`]
    : [call[key], `InvokeOptions.${key}`];
}

/**
 * The time rule of a call (the README's table): `timeoutMs` from the call or the registry
 * (default 60 000; `0` or `Infinity`: none). With `resetTimeoutOnProgress`, each progress report
 * moves the deadline to now + `timeoutMs`, never past start + `maxTotalTimeoutMs` (default
 * 10 × `timeoutMs`; it must be finite). Without it, `maxTotalTimeoutMs` only caps `timeoutMs`.
 *
 * @throws {TypeError} naming the option, for a value of the wrong kind.
 */
export function resolveTimePolicy(call: TimeOptions, registry: ToolRegistryOptions): TimePolicy {
  const [timeout, timeoutName] = pick(call, registry, 'timeoutMs');
  const timeoutMs = timeout === undefined ? 60_000 : milliseconds(timeout, timeoutName);
  const [reset, resetName] = pick(call, registry, 'resetTimeoutOnProgress');
  if (reset !== undefined && typeof reset !== 'boolean') {
    throw new TypeError(`${resetName} must be true or false, got ${String(reset)}.`);
  }
  const [total, totalName] = pick(call, registry, 'maxTotalTimeoutMs');
  let maxTotalTimeoutMs = total === undefined ? undefined : milliseconds(total, totalName);
  if (reset === true && timeoutMs !== Number.POSITIVE_INFINITY) {
    maxTotalTimeoutMs ??= timeoutMs * 10;
    if (maxTotalTimeoutMs === Number.POSITIVE_INFINITY) {
      throw new TypeError(
        `${totalName} must be finite when resetTimeoutOnProgress is on (progress could otherwise keep a call alive forever).`,
      );
    }
  }
  return {
    timeoutMs,
    resetTimeoutOnProgress: reset === true,
    maxTotalTimeoutMs: maxTotalTimeoutMs ?? Number.POSITIVE_INFINITY,
  };
}

/** Whether a call overrides none of the time options (so the registry's policy holds). */
export function usesRegistryTime(call: TimeOptions): boolean {
  return (
    call.timeoutMs === undefined &&
    call.resetTimeoutOnProgress === undefined &&
    call.maxTotalTimeoutMs === undefined
  );
}
