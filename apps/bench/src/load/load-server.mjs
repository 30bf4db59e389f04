// The scripted Chat Completions server of the load suite: the 5-turn `loop` script of the
// peer bench, answered after a fixed delay (20 ms: a model that thinks), counting the
// connections it accepts. It runs in its own process (started by run.mjs with `fork`), so
// the client's CPU and event loop are the client's alone.
//
// The answers are not written here: at start it drives the bench's own scripted server
// (`startChatServer`) through one conversation per mode and serves the very bytes that server
// sent, so the wire format exists once. Every request is still checked against the script
// (3 tools, the tool results of the previous turns with the right ids) and refused with an
// OpenAI error body otherwise: a client that skipped work fails instead of looking fast.
//
// It listens on two ports: the measured one (answers after the delay) and a warm-up one
// (answers at once). Warm-up traffic goes to another origin, so it leaves no pooled socket
// behind for the measured batch: the connections accepted on the measured port during a batch
// are exactly the ones the batch opened.
import { once } from 'node:events';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bareLoop, bareStreamLoop } from '../bare-loop.mjs';
import { startChatServer } from '../chat-server.mjs';
import { LOOP_TURNS, loopToolImplementations, loopToolSchemas } from '../scenario.mjs';

const MODEL = 'loop';
const TOOL_COUNT = Object.keys(loopToolSchemas).length;

/** Runs one conversation against `baseURL`, recording each turn's request and response bytes. */
async function record(baseURL, stream) {
  const turns = [];
  const recordingFetch = async (url, init) => {
    const response = await fetch(url, init);
    const body = Buffer.from(await response.arrayBuffer());
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${body.toString('utf8')}`);
    turns.push({ request: JSON.parse(init.body), body });
    return new Response(body, { status: response.status, headers: response.headers });
  };
  const options = {
    baseURL,
    model: MODEL,
    tools: loopToolSchemas,
    implementation: (name) => loopToolImplementations[name],
    fetch: recordingFetch,
  };
  await (stream ? bareStreamLoop({ ...options, onText: () => {} }) : bareLoop(options));
  if (turns.length !== LOOP_TURNS)
    throw new Error(`recording the script: ${turns.length} turns, expected ${LOOP_TURNS}`);
  return turns;
}

/** The SSE body split after its first two events, sent as the bench's server sends it. */
function splitEvents(body) {
  const text = body.toString('utf8');
  const first = text.indexOf('\n\n');
  const cut = first === -1 ? -1 : text.indexOf('\n\n', first + 2);
  if (cut === -1) return [body, Buffer.alloc(0)];
  return [Buffer.from(text.slice(0, cut + 2)), Buffer.from(text.slice(cut + 2))];
}

/**
 * The script as served: per mode (`json`, `sse`, `sse+usage`) the body of each turn, and per
 * turn the tool-call ids the next request must answer.
 */
async function captureScript() {
  const source = await startChatServer();
  try {
    const json = await record(source.baseURL, false);
    const sseUsage = await record(source.baseURL, true);
    const sse = [];
    for (const turn of sseUsage) {
      const { stream_options: _, ...request } = turn.request;
      const response = await fetch(`${source.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      const body = Buffer.from(await response.arrayBuffer());
      if (!response.ok) throw new Error(`HTTP ${response.status}: ${body.toString('utf8')}`);
      sse.push(body);
    }
    const callIds = json.map(
      (turn) =>
        JSON.parse(turn.body.toString('utf8')).choices[0].message.tool_calls?.map(
          (call) => call.id,
        ) ?? [],
    );
    return {
      bodies: {
        json: json.map((turn) => turn.body),
        sse: sse.map(splitEvents),
        'sse+usage': sseUsage.map((turn) => splitEvents(turn.body)),
      },
      callIds,
    };
  } finally {
    await source.close();
  }
}

/** Why a request does not follow the script, or undefined when it does; also its turn. */
function check(script, body) {
  if (body.model !== MODEL) return { problem: `no scripted answer for model '${body.model}'` };
  const tools = Array.isArray(body.tools) ? body.tools.length : 0;
  if (tools !== TOOL_COUNT) return { problem: `expected ${TOOL_COUNT} tools, got ${tools}` };
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const toolMessages = [];
  let turn = 0;
  for (const message of messages) {
    if (message?.role === 'assistant') turn++;
    else if (message?.role === 'tool') toolMessages.push(message);
  }
  if (turn >= LOOP_TURNS) return { problem: `no scripted answer at turn ${turn}` };
  const expectedCount = script.callIds.slice(0, turn).flat().length;
  if (toolMessages.length !== expectedCount)
    return {
      problem: `expected ${expectedCount} tool messages at turn ${turn}, got ${toolMessages.length}`,
    };
  const last = messages.at(-1)?.role;
  if (last !== (turn === 0 ? 'user' : 'tool'))
    return { problem: `turn ${turn} must end with a ${turn === 0 ? 'user' : 'tool'} message` };
  const expectedIds = new Set(turn === 0 ? [] : script.callIds[turn - 1]);
  for (const message of toolMessages.slice(toolMessages.length - expectedIds.size)) {
    if (!expectedIds.has(message.tool_call_id))
      return { problem: `unexpected tool_call_id ${message.tool_call_id} at turn ${turn}` };
    const content =
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
    if (!content || content.length < 2)
      return { problem: `empty tool result for ${message.tool_call_id}` };
  }
  return { turn };
}

function errorBody(message) {
  return Buffer.from(
    JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code: null } }),
  );
}

/** What to send for one request: { status, contentType, parts }. */
function answer(script, raw) {
  let body;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return { status: 400, contentType: 'application/json', parts: [errorBody('body is not JSON')] };
  }
  const { problem, turn } = check(script, body);
  if (problem !== undefined)
    return { status: 400, contentType: 'application/json', parts: [errorBody(problem)], problem };
  if (body.stream !== true)
    return { status: 200, contentType: 'application/json', parts: [script.bodies.json[turn]] };
  const mode = body.stream_options?.include_usage === true ? 'sse+usage' : 'sse';
  return {
    status: 200,
    contentType: 'text/event-stream; charset=utf-8',
    parts: script.bodies[mode][turn],
  };
}

function send(response, reply) {
  if (reply.parts.length === 1) {
    response.writeHead(reply.status, {
      'content-type': reply.contentType,
      'content-length': reply.parts[0].length,
    });
    response.end(reply.parts[0]);
    return;
  }
  response.writeHead(reply.status, {
    'content-type': reply.contentType,
    'cache-control': 'no-cache',
  });
  response.write(reply.parts[0]);
  setImmediate(() => response.end(reply.parts[1]));
}

/**
 * Starts the load server on 127.0.0.1 (two ports: measured and warm-up).
 * @param {{ delayMs?: number }} [options] delay before each measured answer (default 20 ms)
 * @returns {Promise<{ baseURL: string, warmBaseURL: string, mark(): object, stats(): object, close(): Promise<void> }>}
 *   `mark()` starts a new measurement window (the peak of open connections restarts from the
 *   current count) and returns the counters; `stats()` returns them. Counters are cumulative:
 *   `accepted` connections, `open` now, `peakOpen` since the mark, `requests`, `refused` and
 *   the `lastRefusal`, all for the measured port, and the `cpuMs` this process has used.
 */
export async function startLoadServer(options = {}) {
  const delayMs = options.delayMs ?? 20;
  const script = await captureScript();
  const counters = { accepted: 0, open: 0, peakOpen: 0, requests: 0, refused: 0, lastRefusal: '' };
  const handler = (delayed) => (request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const reply =
        request.method === 'POST' && request.url?.endsWith('/chat/completions')
          ? answer(script, Buffer.concat(chunks))
          : { status: 404, contentType: 'application/json', parts: [errorBody('not found')] };
      if (!delayed) {
        send(response, reply);
        return;
      }
      counters.requests++;
      if (reply.status !== 200) {
        counters.refused++;
        counters.lastRefusal = reply.problem ?? `HTTP ${reply.status} for ${request.url}`;
      }
      setTimeout(() => send(response, reply), delayMs);
    });
  };
  const measured = createServer(handler(true));
  const warm = createServer(handler(false));
  measured.on('connection', (socket) => {
    counters.accepted++;
    counters.open++;
    if (counters.open > counters.peakOpen) counters.peakOpen = counters.open;
    socket.once('close', () => counters.open--);
  });
  for (const server of [measured, warm]) {
    server.keepAliveTimeout = 60_000;
    // A burst of 1 000 connects must not overflow the accept queue (a dropped SYN costs 1 s).
    server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 });
    await once(server, 'listening');
  }
  const snapshot = () => {
    const cpu = process.cpuUsage();
    return { ...counters, cpuMs: (cpu.user + cpu.system) / 1000 };
  };
  const url = (server) => `http://127.0.0.1:${server.address().port}/v1`;
  return {
    baseURL: url(measured),
    warmBaseURL: url(warm),
    mark() {
      counters.peakOpen = counters.open;
      return snapshot();
    },
    stats: () => snapshot(),
    close: async () => {
      for (const server of [measured, warm]) {
        server.closeAllConnections();
        server.close();
      }
    },
  };
}

// As a process (forked by run.mjs): report the URLs, then answer `mark` / `stats` requests
// over the IPC channel until the parent disconnects.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { delay: { type: 'string', default: '20' } } });
  const server = await startLoadServer({ delayMs: Number(values.delay) });
  process.on('message', (message) => {
    const stats = message.type === 'mark' ? server.mark() : server.stats();
    process.send({ id: message.id, stats });
  });
  process.on('disconnect', () => {
    server.close().then(() => process.exit(0));
  });
  process.send({ type: 'ready', baseURL: server.baseURL, warmBaseURL: server.warmBaseURL });
}
