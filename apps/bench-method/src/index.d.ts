/** A median with its distribution-free interval (order statistics of the sign test). */
export interface MedianInterval {
  /** The median of the values. */
  readonly median: number;
  /** The lower bound: the order statistic of rank `medianRanks(n).low`. */
  readonly low: number;
  /** The upper bound: the order statistic of rank `medianRanks(n).high`. */
  readonly high: number;
  /** The exact probability that [low, high] holds the true median. */
  readonly coverage: number;
  /** How many values. */
  readonly n: number;
}

/** Per conversation, the client CPU (user + system) and the wall time of one pass, in ms. */
export interface Pass {
  readonly cpuMs: number;
  readonly wallMs: number;
}

/** What the runner reads: a clock and the process CPU, both in ms. */
export interface Sources {
  readonly wallMs: () => number;
  readonly cpuMs: () => number;
}

/** Options of `alternate`. */
export interface AlternateOptions {
  /** Recorded pairs, at least 20 (default 20). */
  readonly pairs?: number;
  /** Pairs run first and not recorded (default 3). */
  readonly warmupPairs?: number;
  /** Conversations per pass (default 10). */
  readonly conversations?: number;
  /** Clock and CPU source (default `realSources`), or one per side (`{ a, b }`); tests pass fakes. */
  readonly sources?: Sources | { readonly a: Sources; readonly b: Sources };
  /** Run before each pass; `globalThis.gc` by default when exposed, `null` for none. */
  readonly collect?: (() => void) | null;
  /** Confidence of the intervals (default 0.95). */
  readonly confidence?: number;
}

/** The figures of an alternating run. */
export interface Comparison {
  /** Medians of A's passes. */
  readonly a: Pass;
  /** Medians of B's passes. */
  readonly b: Pass;
  /** B ÷ A client CPU per conversation: the median of per-pair ratios and its interval. */
  readonly cpuRatio: MedianInterval;
  /** B ÷ A wall time per conversation: the median of per-pair ratios and its interval. */
  readonly wallRatio: MedianInterval;
  /** Recorded pairs. */
  readonly pairs: number;
  /** The side of each recorded pass, in the order run. */
  readonly order: readonly ('a' | 'b')[];
  /** Every recorded pass. */
  readonly passes: { readonly a: readonly Pass[]; readonly b: readonly Pass[] };
}

/** The real sources: `performance.now()` and `process.cpuUsage()` (user + system). */
export declare const realSources: Sources;
/** The sources of `side`: `sources` itself, or `sources[side]` when it gives one per side. */
export declare function sourcesOf(
  sources: Sources | { readonly a: Sources; readonly b: Sources },
  side: 'a' | 'b',
): Sources;
/** The CPU time (ms) the threads of process `pid` have used so far (Linux `/proc/<pid>/task/<tid>/schedstat`). */
export declare function processCpuMs(pid: number): number;
/** Sources whose CPU is that of the processes `pids` (summed) and whose clock is this process's. */
export declare function processSources(pids: number | readonly number[]): Sources;
/** The order of pair `index`: A B for even pairs, B A for odd ones. */
export declare function pairOrder(index: number): ['a', 'b'] | ['b', 'a'];
/** One pass of `conversations` runs of `run`, per conversation. */
export declare function measurePass(
  run: () => Promise<unknown>,
  conversations: number,
  sources?: Sources,
  collect?: () => void,
): Promise<Pass>;
/** A young-generation GC to run before each pass (`gc({ type: 'minor' })`); undefined without `--expose-gc`. */
export declare function minorCollect(): (() => void) | undefined;
/** Runs `a` and `b` in alternating passes; ratios are B ÷ A. */
export declare function alternate(
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
  options?: AlternateOptions,
): Promise<Comparison>;
/** The figures of recorded passes. */
export declare function summarize(
  passes: { readonly a: readonly Pass[]; readonly b: readonly Pass[] },
  order?: readonly ('a' | 'b')[],
  confidence?: number,
): Comparison;

/** The median (mean of the middle two for an even count); NaN when empty. */
export declare function median(values: readonly number[]): number;
/** P(X <= k) for X ~ Binomial(n, 1/2). */
export declare function binomialCdf(n: number, k: number): number;
/** The 1-based ranks bounding the median's distribution-free interval, and its coverage. */
export declare function medianRanks(
  n: number,
  confidence?: number,
): { low: number; high: number; coverage: number };
/** The median of `values` with its distribution-free interval. */
export declare function medianInterval(
  values: readonly number[],
  confidence?: number,
): MedianInterval;
/** `b[i] / a[i]` for each pair. */
export declare function pairRatios(a: readonly number[], b: readonly number[]): number[];

/** The repository root of the working tree. */
export declare const workingTree: string;
/** The value after `--name` in `argv`. */
export declare function flagValue(argv: readonly string[], name: string): string | undefined;
/** The roots of a run: A and B checkouts; `compare` when A was given. */
export declare function libraryRoots(
  argv?: readonly string[],
  env?: Record<string, string | undefined>,
): { compare: boolean; a: string; b: string };
/** The built file of `specifier` in the checkout at `root`, undefined when it has no such export. */
export declare function libraryFile(root: string, specifier: string): string | undefined;
/** Imports `specifier` from the built packages of `root`. */
export declare function importLibrary<T = unknown>(
  root: string,
  specifier: string,
): Promise<T | undefined>;

/** `1.03× (0.99–1.07)`. */
export declare function ratioText(interval: MedianInterval): string;
/** '<b> faster', '<b> slower' or 'no difference resolved' (`b` is 'B' unless given). */
export declare function verdict(interval: MedianInterval, b?: string): string;
/** A Markdown table. */
export declare function markdownTable(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string;
/** The table of named comparisons. */
export declare function resultTable(
  entries: readonly { name: string; result: Comparison }[],
  labels?: { a: string; b: string },
): string;
/** Node version, flags and load average. */
export declare function conditions(): string;
