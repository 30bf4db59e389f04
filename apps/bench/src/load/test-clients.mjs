// Clients whose truth is known, for the load suite's own test (load.test.mjs): the 5-turn
// script over `node:http` with a new connection for every request (exactly 5 sockets per
// conversation), and the same with every second conversation asking for a model the server
// has no script for (refused with HTTP 400 at its first request).
import { request } from 'node:http';
import { bareLoop } from '../bare-loop.mjs';
import { loopToolImplementations, loopToolSchemas } from '../scenario.mjs';

/** A `fetch` on `node:http` that opens a connection per request and closes it after. */
function closingFetch(url, init) {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: init.method,
        headers: { ...init.headers, connection: 'close' },
        agent: false,
      },
      (incoming) => {
        const chunks = [];
        incoming.on('data', (chunk) => chunks.push(chunk));
        incoming.on('end', () => {
          const headers = { 'content-type': incoming.headers['content-type'] ?? '' };
          resolve(new Response(Buffer.concat(chunks), { status: incoming.statusCode, headers }));
        });
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

/** The test clients, in the shape of the bench's framework adapters. */
export async function create({ baseURL }) {
  let calls = 0;
  const run = async (model) =>
    (
      await bareLoop({
        baseURL,
        model,
        tools: loopToolSchemas,
        implementation: (name) => loopToolImplementations[name],
        fetch: closingFetch,
      })
    ).text;
  return {
    closing: () => run('loop'),
    flaky: () => run(calls++ % 2 === 1 ? 'unscripted' : 'loop'),
  };
}
