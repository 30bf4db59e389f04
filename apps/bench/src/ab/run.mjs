// `pnpm bench` in apps/bench: the loop and stream suites on the A/B method, per wire format
// (Chat Completions, Anthropic Messages, OpenAI Responses, Gemini). Without `--root-a`: the bare loop
// of the format (A) against agcore of the working tree (B). With `--root-a DIR` (what
// `pnpm bench:compare <ref>` passes): agcore of DIR (A) against agcore of `--root-b` (B), in
// the same process, passes alternating. Flags: --pairs N (>= 20), --warmup N (pairs),
// --conversations N (per pass, default 50), --only chat,messages,responses,gemini,
// --collect / --no-collect (a full GC or none before each pass instead of a minor one), --floor
// (the bare Chat Completions loop against the floor levels of floor.mjs instead of agcore). See
// docs/benchmarks.md.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  alternate,
  conditions,
  flagValue,
  libraryRoots,
  minorCollect,
  resultTable,
  workingTree,
} from '@agcore/bench-method';
import { agcoreContenders } from './agcore.mjs';
import { bareLoops } from './bare.mjs';
import { requestsPerConversation } from './conversation.mjs';

const formats = {
  chat: 'Chat Completions',
  messages: 'Anthropic Messages',
  responses: 'OpenAI Responses',
  gemini: 'Gemini',
};

function numberFlag(name, fallback) {
  const value = flagValue(process.argv, name);
  return value === undefined ? fallback : Number(value);
}

/** What runs before each pass, by flag: `--no-collect` none, `--collect` a full GC, else a minor one. */
function collectMode(argv) {
  if (argv.includes('--no-collect')) return 'none';
  return argv.includes('--collect') ? 'full' : 'minor';
}

/**
 * The pass collector of `argv`: a young-generation GC by default (`null` without
 * `--expose-gc`); `--collect` undefined, the method's own full GC (which deoptimizes hot code:
 * see docs/benchmarks.md); `--no-collect` null, none.
 */
export function collector(argv) {
  const mode = collectMode(argv);
  if (mode === 'none') return null;
  return mode === 'full' ? undefined : (minorCollect() ?? null);
}

/** What `collector(argv)` runs, in words. */
export function collectText(argv) {
  const mode = collectMode(argv);
  if (mode !== 'none' && typeof globalThis.gc !== 'function')
    return 'no GC (node without --expose-gc)';
  return { none: 'no GC', full: 'a full GC', minor: 'a minor GC' }[mode];
}

/** Starts the servers' child process; resolves to their base URLs and a stop function. */
export function startServers() {
  const child = fork(fileURLToPath(new URL('./server.mjs', import.meta.url)), [], {
    execArgv: [],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the bench server exited (${code})`)));
    child.once('message', (message) =>
      resolve({ urls: message.urls, stop: () => child.disconnect() }),
    );
  });
}

/** The two sides of `format` (streamed or not) for this run's roots. */
async function sides(roots, format, baseURL, stream) {
  const mode = stream ? 'stream' : 'json';
  const b = await agcoreContenders(roots.b, format, baseURL);
  if (b === undefined) throw new Error(`${roots.b} has no ${formats[format]} provider`);
  if (!roots.compare) return { a: () => bareLoops[format](baseURL, stream), b: b[mode] };
  const a = await agcoreContenders(roots.a, format, baseURL);
  return a === undefined ? undefined : { a: a[mode], b: b[mode] };
}

/**
 * `--floor`: the bare Chat Completions loop (A) against each level of the floor (B), not
 * streamed. floor.mjs is loaded only then (it builds a registry of the working tree).
 */
async function floorEntries(baseURL, options) {
  const { floorChat, floorLevels } = await import('./floor.mjs');
  const entries = [];
  for (const [level, name] of Object.entries(floorLevels)) {
    process.stderr.write(`${name} …\n`);
    const result = await alternate(
      () => bareLoops.chat(baseURL, false),
      () => floorChat(baseURL, level),
      options,
    );
    entries.push({ name, result });
  }
  return entries;
}

/** `--floor`'s report: what the guarantees cost by themselves over the bare loop. */
async function floorReport(options) {
  const servers = await startServers();
  let entries;
  try {
    entries = await floorEntries(servers.urls.chat, options);
  } finally {
    servers.stop();
  }
  process.stdout.write(
    `\nThe floor of the guarantees (Chat Completions, not streamed): A = the bare loop, B = the bare loop with the guarantees of each level (floor.mjs). ${requestsPerConversation} model requests per conversation, ${options.pairs} pairs of passes after ${options.warmupPairs} warm-up pairs, ${options.conversations} conversations per pass, ${collectText(process.argv)} before each pass; ratios B ÷ A are medians of the per-pair ratios with their distribution-free 95 % interval. ${conditions()}.\n\n${resultTable(entries, { a: 'bare loop', b: 'floor' })}\n`,
  );
}

async function main() {
  const roots = libraryRoots();
  const options = {
    pairs: numberFlag('pairs', 20),
    warmupPairs: numberFlag('warmup', 3),
    conversations: numberFlag('conversations', 50),
    collect: collector(process.argv),
  };
  if (process.argv.includes('--floor')) return floorReport(options);
  const only = (flagValue(process.argv, 'only') ?? Object.keys(formats).join(',')).split(',');
  const servers = await startServers();
  const entries = [];
  const skipped = [];
  try {
    for (const format of only) {
      if (!Object.hasOwn(formats, format)) throw new Error(`unknown format ${format}`);
      for (const stream of [false, true]) {
        const name = `${formats[format]}, ${stream ? '`submitStreamWithTools`' : '`submitWithTools`'}`;
        const pair = await sides(roots, format, servers.urls[format], stream);
        if (pair === undefined) {
          skipped.push(name);
          continue;
        }
        process.stderr.write(`${name} …\n`);
        entries.push({ name, result: await alternate(pair.a, pair.b, options) });
      }
    }
  } finally {
    servers.stop();
  }
  const labels = roots.compare
    ? { a: 'A (ref)', b: 'B (working tree)' }
    : { a: 'bare loop', b: 'agcore' };
  const what = roots.compare
    ? `A = agcore built at ${roots.a}, B = agcore of ${roots.b === workingTree ? 'the working tree' : roots.b}`
    : 'A = the bare loop of the wire format, B = agcore (`LlmCycle`, `ToolRegistry`) of the working tree';
  process.stdout.write(
    `\nA/B loop and stream suites: ${what}. ${requestsPerConversation} model requests per conversation (4 tool turns, one with 2 parallel calls, then 100 deltas), ${options.pairs} pairs of passes (A B, B A, …) after ${options.warmupPairs} warm-up pairs, ${options.conversations} conversations per pass, ${collectText(process.argv)} before each pass; ratios B ÷ A are medians of the per-pair ratios with their distribution-free 95 % interval. ${conditions()}.\n\n${resultTable(entries, labels)}\n${skipped.length > 0 ? `\nNot in A (no such provider there): ${skipped.join('; ')}\n` : ''}\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  main().catch((error) => {
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  });
