// Checks the load suite itself at tiny scale: real client processes against the real load
// server process, C = 2 conversations of the 5-turn script. Clients with a known truth
// (test-clients.mjs: one connection per request; every second conversation refused) prove
// that sockets, requests and errors are counted right; agcore's two paths must complete.
// The report's arithmetic is checked on hand-made figures.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadReadmeRow, loadSection } from './report.mjs';
import { runLoadSuite } from './run.mjs';

const testClients = new URL('./test-clients.mjs', import.meta.url).href;

describe('load suite at C = 2', () => {
  let load;
  const find = (client, limited = false) =>
    load.runs.find((run) => run.client === client && (run.openFiles !== undefined) === limited);

  beforeAll(async () => {
    load = await runLoadSuite(
      {
        concurrency: [2],
        clients: ['closing', 'flaky', 'agcore', 'agcore-stream', 'missing'],
        rounds: 1,
        warmup: 1,
        delayMs: 20,
        timeoutMs: 20_000,
        limited: { clients: ['closing'], concurrency: 2, openFiles: 1024, rounds: 1 },
      },
      {
        clients: {
          closing: { module: testClients, method: 'closing' },
          flaky: { module: testClients, method: 'flaky' },
          missing: { module: testClients, method: 'nothing' },
        },
      },
    );
  }, 90_000); // about 3 s on a quiet machine; generous for a loaded CI

  it('counts the connections the server accepted during the batch, not during the warm-up', () => {
    const run = find('closing');
    expect(run.error).toBeUndefined();
    expect(run.completed).toBe(2);
    expect(run.errors.count).toBe(0);
    expect(run.server).toMatchObject({ socketsOpened: 10, requests: 10, refused: 0 });
    expect(run.p50Ms).toBeGreaterThanOrEqual(5 * 20);
  });

  it('counts a failed conversation with its first message, and the server counts the refusal', () => {
    const run = find('flaky');
    expect(run.completed).toBe(1);
    expect(run.errors.count).toBe(1);
    expect(run.errors.first).toMatch(/HTTP 400.*no scripted answer for model 'unscripted'/);
    expect(run.server).toMatchObject({ requests: 6, refused: 1 });
    expect(run.server.lastRefusal).toMatch(/unscripted/);
  });

  it('runs agcore streamed and not, one request per turn, and reports every figure', () => {
    for (const client of ['agcore', 'agcore-stream']) {
      const run = find(client);
      expect(run.error).toBeUndefined();
      expect(run.completed).toBe(2);
      expect(run.errors.count).toBe(0);
      expect(run.server.requests).toBe(10);
      expect(run.server.socketsOpened).toBeGreaterThanOrEqual(2);
      expect(run.server.socketsOpened).toBeLessThanOrEqual(10);
      for (const figure of [
        'batchMs',
        'p99Ms',
        'launchBlockMs',
        'loopDelayP99Ms',
        'cpuMsPerConversation',
        'maxRssMb',
        'retainedKbPerConversation',
      ])
        expect(Number.isFinite(run[figure]), figure).toBe(true);
    }
  });

  it('runs the limited client under the open-files limit it asked for', () => {
    const run = find('closing', true);
    expect(run.openFilesLimit).toBe(1024);
    expect(run.completed).toBe(2);
    expect(run.server.socketsOpened).toBe(10);
    expect(find('closing').openFilesLimit).not.toBe(1024);
  });

  it('reports a client that cannot run instead of skipping it', () => {
    expect(find('missing').error).toMatch(/has no method nothing/);
    const lines = [];
    loadSection({ load }, lines, []);
    const text = lines.join('\n');
    expect(text).toMatch(/missing at C = 2: \*\*could not be measured\*\*/);
    expect(text).toMatch(/flaky at C = 2, first error: `Error: HTTP 400/);
  });
});

/** A run as the client reports it, with the figures the report reads. */
function run(client, concurrency, round, batchMs, extra = {}) {
  return {
    client,
    concurrency,
    round,
    batchMs,
    completed: concurrency,
    errors: { count: 0, codes: {} },
    conversationsPerSecond: concurrency / (batchMs / 1000),
    cpuMsPerConversation: batchMs / concurrency,
    launchBlockMs: batchMs / 10,
    loopDelayP99Ms: batchMs / 4,
    server: { socketsOpened: concurrency, peakOpen: concurrency, requests: 5 * concurrency },
    ...extra,
  };
}

describe('load report', () => {
  const plan = {
    concurrency: [200, 1000],
    clients: ['bare', 'sse', 'agcore', 'agcore-stream', 'ai-sdk', 'openai-agents'],
    rounds: 2,
    warmup: 1,
    delayMs: 20,
    limited: {
      clients: ['agcore', 'agcore-stream'],
      concurrency: 1000,
      openFiles: 1024,
      rounds: 1,
    },
  };
  const runs = [];
  for (const round of [0, 1]) {
    for (const concurrency of [200, 1000]) {
      runs.push(run('bare', concurrency, round, 1000));
      runs.push(run('sse', concurrency, round, 1000));
      runs.push(run('agcore', concurrency, round, round === 0 ? 1040 : 1200));
      runs.push(run('agcore-stream', concurrency, round, 990));
      runs.push(run('ai-sdk', concurrency, round, 2000));
      runs.push(run('openai-agents', concurrency, round, 4000));
    }
  }
  runs.push(
    run('agcore', 1000, 0, 3000, {
      openFiles: 1024,
      completed: 159,
      errors: {
        count: 841,
        first: 'LlmError: network (cause: connect EMFILE)',
        codes: { EMFILE: 841 },
      },
    }),
    run('agcore-stream', 1000, 0, 1000, { openFiles: 1024 }),
  );
  const load = { plan, runs };

  it('takes ratios round by round and marks the targets met or missed', () => {
    const lines = [];
    const summary = [];
    loadSection({ load }, lines, summary);
    const text = summary.join('\n');
    expect(text).toContain(
      'C = 200, batch time: agcore ÷ bare fetch loop **missed** (1.12× > 1.05×), *not conclusive*: the rounds range 1.04–1.20×; agcore streamed ÷ bare SSE loop met (0.99× ≤ 1.00×).',
    );
    expect(text).toContain('agcore **missed** (159 of 1,000 completed); agcore streamed met');
    expect(text).toContain(
      "C = 1,000, client CPU per conversation (median of the rounds' ratios): agcore ÷ bare fetch loop 1.12× (1.04–1.20); agcore streamed ÷ bare SSE loop 0.99×.",
    );
    expect(text).toContain(
      'launch, loop blocked: agcore 112 ms (100 ms), streamed 99.0 ms (100 ms); event-loop delay p99: agcore 280 ms (250 ms), streamed 248 ms (250 ms).',
    );
    expect(lines.join('\n')).toContain('| 200 | 1.12× (1.04–1.20) | 0.56× (0.52–0.60) |');
  });

  it('writes the README row from the largest C', () => {
    expect(loadReadmeRow(load)).toBe(
      '| 1 000 concurrent conversations (batch time; streamed ÷ SSE loop) | 1.04–1.20× (streamed 0.99×) | 2.00× | 4.00× |',
    );
    expect(loadReadmeRow(undefined)).toBeUndefined();
  });
});
