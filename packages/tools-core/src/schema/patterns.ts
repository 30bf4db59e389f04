import {
  compileLinearRegex,
  InvalidPattern,
  type LinearRegex,
  UnsupportedPattern,
} from './regex.js';
import { SchemaProblem } from './snapshot.js';
import { exhaust, fail, type State } from './state.js';

/**
 * Where a schema comes from. `'trusted'`: the application wrote it (a `defineTool` tool, a
 * `BaseTool` of its own). `'untrusted'`: another party chose it (an MCP server's tool).
 */
export type SchemaTrust = 'trusted' | 'untrusted';

/** A compiled `pattern` (or `patternProperties` key), as the keyword checks run it. */
export interface Pattern {
  /** The pattern as written in the schema. */
  readonly source: string;
  /** An untrusted pattern beyond the linear engine: it is not checked, every string passes. */
  readonly unchecked: boolean;
  /**
   * Whether `text` matches. `undefined`: the value fails without a "must match" problem,
   * because the budget ran out (`state.exhausted`) or `text` is longer than a pattern run on the
   * platform's `RegExp` may check (that problem is recorded; `key` says it is a property name).
   */
  test(text: string, state: State, key?: boolean): boolean | undefined;
}

const advice =
  'Fix the pattern: JSON Schema patterns are ECMA-262 regular expressions, read with the u flag';

function linearPattern(source: string, regex: LinearRegex): Pattern {
  return {
    source,
    unchecked: false,
    test(text, state) {
      const matched = regex(text, state);
      if (state.steps >= 0) return matched;
      exhaust(state);
      return undefined;
    },
  };
}

/**
 * A pattern of a trusted schema that the linear engine cannot run: the platform's `RegExp`
 * (`u` flag), on inputs of at most `maxLength` UTF-16 code units, so that a catastrophic
 * pattern costs at most a bounded input's worth of backtracking. Longer inputs fail, naming
 * the bound. First, where it compiles, the relaxed pattern (lookaround removed, backreferences
 * as any text) runs on the linear engine: a string it refuses cannot match, and never reaches
 * `RegExp` (`^(?=a)(a+)+$` against `aaaa…!` is refused in one pass).
 */
function nativePattern(source: string, maxLength: number): Pattern {
  const native = new RegExp(source, 'u');
  const preCheck = relaxedRegex(source);
  const tooLong = `longer than ${maxLength} characters, the longest input a pattern with lookaround or backreferences (${JSON.stringify(source)}) is checked on (SchemaCompilerOptions.maxNativePatternInputLength)`;
  return {
    source,
    unchecked: false,
    test(text, state, key) {
      if (text.length > maxLength) {
        fail(state, key === true ? `has a property name ${tooLong}` : `is ${tooLong}`);
        return undefined;
      }
      const possible = preCheck === undefined || preCheck(text, state);
      state.steps -= text.length;
      if (state.steps < 0) {
        exhaust(state);
        return undefined;
      }
      return possible && native.test(text);
    },
  };
}

function relaxedRegex(source: string): LinearRegex | undefined {
  try {
    return compileLinearRegex(source, true);
  } catch {
    // Beyond the linear engine even relaxed (a count above 1000...): RegExp alone.
    return undefined;
  }
}

function uncheckedPattern(source: string): Pattern {
  return { source, unchecked: true, test: () => true };
}

/**
 * The patterns of one compiler: linear programs cached by source (shared by trusted and
 * untrusted schemas, since their meaning is the same), native `RegExp`s for trusted patterns
 * beyond the linear engine, and the warnings already given for untrusted ones (one per pattern).
 */
export class PatternCache {
  private readonly linear = new Map<string, LinearRegex | UnsupportedPattern>();
  private readonly native = new Map<string, Pattern>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly maxNativeInputLength: number,
    private readonly onWarning: ((message: string) => void) | undefined,
  ) {}

  /**
   * The pattern for `source` in a schema of the given trust. A warning for an untrusted pattern
   * left unchecked is added to `pending`, to be given by `warn` once the schema compiled.
   *
   * @throws {SchemaProblem} for a pattern `RegExp` refuses (whatever the trust).
   */
  get(source: string, trust: SchemaTrust, subject: string, pending: Map<string, string>): Pattern {
    let linear = this.linear.get(source);
    if (linear === undefined) {
      try {
        linear = compileLinearRegex(source);
      } catch (error) {
        if (error instanceof InvalidPattern) {
          throw new SchemaProblem(
            `its pattern ${JSON.stringify(source)} cannot be used: ${error.message}`,
            advice,
          );
        }
        if (!(error instanceof UnsupportedPattern)) throw error;
        linear = error;
      }
      this.linear.set(source, linear);
    }
    if (typeof linear === 'function') return linearPattern(source, linear);
    if (trust === 'untrusted') {
      if (!this.warned.has(source) && !pending.has(source)) {
        pending.set(
          source,
          `The schema of tool '${subject}' has the pattern ${JSON.stringify(source)}, which the linear-time pattern engine cannot run (${linear.message}); the schema is untrusted, so values are not checked against this pattern. The other keywords of the schema still apply.`,
        );
      }
      return uncheckedPattern(source);
    }
    let native = this.native.get(source);
    if (native === undefined) {
      native = nativePattern(source, this.maxNativeInputLength);
      this.native.set(source, native);
    }
    return native;
  }

  /** Gives the pending warnings (each pattern once per compiler). A throwing handler is ignored. */
  warn(pending: Map<string, string>): void {
    for (const [source, message] of pending) {
      if (this.warned.has(source)) continue;
      this.warned.add(source);
      try {
        this.onWarning?.(message);
      } catch {
        // The handler's failure must not fail the compile: the warning is informational.
      }
    }
  }
}
