// The token bench (issue 25): bytes each framework sends over a 5-turn conversation with long
// tool results, and which start and end facts the model can still reach at its last request
// (in the request, or through read_result when the result was spilled). Run:
// `pnpm --filter @agcore/bench bench:tokens`.
import { pathToFileURL } from 'node:url';
import { endFact, RESULT_SIZES, startFact } from './conversation.mjs';
import { runners } from './runners.mjs';
import { startTokenServer } from './server.mjs';
import { formatToolSearch, runToolSearchBench } from './tool-search-bench.mjs';

const handlePattern = /read_result\(\{\\?"handle\\?":\\?"([^"\\]+)\\?"\}\)/g;

/** Which facts of result `index` the last request reaches, directly or through a handle. */
async function reached(lastBody, store) {
  const spilled = [];
  if (store !== undefined) {
    for (const match of lastBody.matchAll(handlePattern)) {
      const content = await store.get(match[1]);
      if (content !== undefined) spilled.push(content);
    }
  }
  const reach = (fact) =>
    lastBody.includes(fact) || spilled.some((content) => content.includes(fact));
  let start = 0;
  let end = 0;
  for (let index = 0; index < RESULT_SIZES.length; index++) {
    if (reach(startFact(index))) start++;
    if (reach(endFact(index))) end++;
  }
  return { start, end };
}

/** Runs every framework once; returns one row each: requests, bytes sent, facts reached. */
export async function runTokenBench(selected = runners) {
  const server = await startTokenServer();
  const rows = [];
  try {
    for (const runner of selected) {
      server.reset();
      const { store } = await runner.run(server.baseURL);
      const bodies = server.bodies();
      const bytes = bodies.reduce((sum, body) => sum + Buffer.byteLength(body), 0);
      const facts = await reached(bodies.at(-1) ?? '', store);
      rows.push({ label: runner.label, requests: bodies.length, bytes, ...facts });
    }
  } finally {
    await server.close();
  }
  return rows;
}

/** The rows as a table, with each row's bytes against the AI SDK's default. */
export function formatTokenRows(rows) {
  const baseline = rows.find((row) => row.label === 'AI SDK, default')?.bytes;
  const lines = [
    '| run | requests | bytes sent | vs AI SDK default | start facts | end facts |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const row of rows) {
    const ratio =
      baseline === undefined ? '' : `${Math.round((1 - row.bytes / baseline) * 100)} % fewer`;
    lines.push(
      `| ${row.label} | ${row.requests} | ${row.bytes.toLocaleString('en')} | ${ratio} | ${row.start}/5 | ${row.end}/5 |`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = await runTokenBench();
  process.stdout.write(`${formatTokenRows(rows)}\n\nTool search:\n`);
  process.stdout.write(`${formatToolSearch(await runToolSearchBench())}\n`);
}
