// invoke() the way the LLM loop meets it: the first call after a network round trip, when the
// process has just come back from waiting on a socket. A tight loop (registry.bench.mjs) keeps
// invoke's code and data hot; here each call starts after a real HTTP request to a server in a
// child process, so the figure is what the loop pays per turn (issue 14).
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { ToolRegistry } from '@agcore/tools-registry';

const body = JSON.stringify({ choices: [{ message: { role: 'assistant', content: 'ok' } }] });

function serve() {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  });
  server.listen(0, '127.0.0.1', () => process.send?.({ port: server.address().port }));
  process.on('disconnect', () => server.close(() => process.exit(0)));
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Microseconds (medians) of `await direct()`, `await invoke()` with the loop's options as the
 * first call after a fetch, and of a second `invoke()` right after (hot), over `turns` turns.
 */
export async function invokeAfterIo(turns) {
  const child = fork(new URL(import.meta.url), ['--server'], { stdio: 'inherit' });
  const port = await new Promise((resolve) => child.once('message', (m) => resolve(m.port)));
  const url = `http://127.0.0.1:${port}/`;
  const execute = async ({ city }) => ({ city, temperature: 22, unit: 'C' });
  const registry = new ToolRegistry().register({
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    execute,
  });
  const samples = { direct: [], first: [], second: [] };
  const args = { city: 'Paris' };
  const warmUp = Math.min(2000, turns);
  for (let turn = 0; turn < warmUp + turns; turn++) {
    const signal = new AbortController().signal;
    const options = {
      timeoutMs: 60_000,
      signal,
      context: { sessionId: 'session-1', traceId: 'trace-1', toolCallId: `call_${turn}` },
    };
    // Alternate which of the two is measured right after the round trip.
    const directTurn = turn % 2 === 0;
    await (await fetch(url, { method: 'POST', body: '{}' })).json();
    let start = performance.now();
    if (directTurn) await execute(args);
    else await registry.invoke('get_weather', args, options);
    const first = performance.now() - start;
    start = performance.now();
    if (!directTurn) await registry.invoke('get_weather', args, options);
    const second = performance.now() - start;
    if (turn < warmUp) continue;
    if (directTurn) samples.direct.push(first * 1000);
    else {
      samples.first.push(first * 1000);
      samples.second.push(second * 1000);
    }
  }
  child.disconnect();
  return {
    directUs: median(samples.direct),
    firstUs: median(samples.first),
    secondUs: median(samples.second),
  };
}

if (process.argv.includes('--server')) serve();
