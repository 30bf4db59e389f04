/**
 * What agcore's packages share to emit OpenTelemetry data without depending on it: a check for
 * a registered tracer provider that loads nothing, and a module loaded once, on first need.
 * `@opentelemetry/api` stays an optional peer dependency of the packages that trace
 * (tools-registry, llm-cycle, tools-mcp): each imports it from its own location, through
 * `optionalImport`, only after `isTracerProviderRegistered()` said yes.
 */

import { truncateUtf8 } from './truncate-utf8.js';

/**
 * Where `@opentelemetry/api` 1.x keeps what the application registered (`trace`, `context`,
 * `propagation`, ...): one object on `globalThis`, shared by every copy of the API of that
 * major version, so that two copies in one install see the same registrations.
 */
const apiGlobalKey = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether an application registered a tracer provider with `@opentelemetry/api` 1.x
 * (`trace.setGlobalTracerProvider(...)`, which `NodeSDK.start()` and
 * `NodeTracerProvider.register()` do). Reads one property of `globalThis`: loads nothing and
 * costs nanoseconds, so a package may ask on every call. `trace.disable()` makes it false
 * again. Never throws.
 */
export function isTracerProviderRegistered(): boolean {
  try {
    const registered = (globalThis as { [apiGlobalKey]?: { readonly trace?: unknown } })[
      apiGlobalKey
    ];
    return registered !== undefined && registered !== null && registered.trace !== undefined;
  } catch {
    return false;
  }
}

/** A module loaded at most once, on first need (see `optionalImport`). */
export interface OptionalImport<T> {
  /** The module once loaded; `undefined` before, and for good when it could not be loaded. */
  readonly module: T | undefined;
  /** Whether loading ended (with the module or without it). */
  readonly settled: boolean;
  /** Loads the module (the first call starts it; later calls share it). Never rejects. */
  load(): Promise<T | undefined>;
}

/**
 * A module loaded the first time `load()` is called, by `importer` (give it as
 * `() => import('name')` in the package that declares the dependency, so that the name is
 * resolved from there). When the import fails (an optional dependency that is not installed),
 * `module` stays `undefined` and no later call tries again. Never throws.
 */
export function optionalImport<T>(importer: () => Promise<T>): OptionalImport<T> {
  let pending: Promise<T | undefined> | undefined;
  const state: { module: T | undefined; settled: boolean } = {
    module: undefined,
    settled: false,
  };
  return {
    get module() {
      return state.module;
    },
    get settled() {
      return state.settled;
    },
    load() {
      pending ??= new Promise<T>((resolve) => resolve(importer())).then(
        (module) => {
          state.module = module;
          state.settled = true;
          return module;
        },
        () => {
          state.settled = true;
          return undefined;
        },
      );
      return pending;
    },
  };
}

/**
 * The default bound of one span attribute that agcore writes, in UTF-8 bytes (16 KiB): message
 * contents, tool descriptions and tool arguments or results alike. Telemetry backends cap an
 * attribute far lower than a model's context holds (and a tool description is text an MCP
 * server chooses), so every string attribute goes through `boundAttribute`.
 */
export const defaultMaxAttributeBytes = 16 * 1024;

/**
 * `value` cut to at most `maxBytes` UTF-8 bytes, marker included, never inside a character,
 * with the same marker as a cut tool result (`…[truncated: N of M bytes cut]`). A `maxBytes`
 * that is not a positive finite number means the default. `totalBytes`: `value` is the start of
 * a longer text of that size (see `truncateUtf8`). Never throws.
 */
export function boundAttribute(
  value: string,
  maxBytes: number = defaultMaxAttributeBytes,
  totalBytes?: number,
): string {
  const limit =
    Number.isFinite(maxBytes) && maxBytes > 0 ? Math.floor(maxBytes) : defaultMaxAttributeBytes;
  return truncateUtf8(value, limit, totalBytes).text;
}
