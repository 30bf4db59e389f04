// Issue 21 §2: McpClientOptions.retry against real servers that die mid-call. Two serveTools
// processes (test-support/fleet-node.ts) behind a failover proxy that, like a load balancer,
// sends a request to the next node only when the first refuses the connection (so it never
// repeats a request itself). The `hold` tool commits its effect (an O_EXCL file per key), then
// holds; the node is killed with SIGKILL after the commit, before the answer.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClient, type McpToolError } from '@agcore/tools-mcp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fleetNodePath } from './test-support/build-stdio-server.js';
import { freePort } from './test-support/haproxy-fleet.js';

interface Node {
  readonly child: ChildProcess;
  readonly port: number;
}

/**
 * A fleet node on a free port. The port is free when picked but can be taken before the node
 * binds it (another suite's server, on a busy machine: EADDRINUSE), so a node that exits before
 * it is ready is started again on a new port, three times at most.
 */
async function startNode(directory: string, attempts = 3): Promise<Node> {
  const port = await freePort();
  const child = spawn(process.execPath, [fleetNodePath, String(port), directory], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = new Promise<Node>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`node on ${port} exited with ${String(code)}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve({ child, port });
    });
  });
  return attempts > 1 ? started.catch(() => startNode(directory, attempts - 1)) : started;
}

/** Forwards to the first node that accepts the connection; counts the tools/call each got. */
class FailoverProxy {
  readonly calls = new Map<number, number>();
  readonly server: Server;

  constructor(private readonly ports: readonly number[]) {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => this.forward(0, request, response, Buffer.concat(chunks)));
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return `http://127.0.0.1:${port}/mcp`;
  }

  private forward(
    index: number,
    request: IncomingMessage,
    response: ServerResponse,
    body: Buffer,
  ): void {
    const port = this.ports[index];
    if (port === undefined) {
      response.writeHead(502).end();
      return;
    }
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.url,
        headers: request.headers,
        agent: false,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
        answer.on('close', () => {
          if (!answer.complete) response.destroy();
        });
      },
    );
    upstream.on('socket', (socket) =>
      socket.once('connect', () => {
        if (body.includes('"tools/call"')) this.calls.set(port, (this.calls.get(port) ?? 0) + 1);
      }),
    );
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      // A refused connection never reached the node; a reset before any answer (a node that is
      // dying) may have, so only requests other than tools/call go on to the next node then
      // (as haproxy's `retry-on conn-failure empty-response` would for safe requests).
      const unanswered = error.code === 'ECONNRESET' && !body.includes('"tools/call"');
      if (error.code === 'ECONNREFUSED' || (unanswered && !response.headersSent))
        this.forward(index + 1, request, response, body);
      else if (!response.headersSent) response.writeHead(502).end();
      else response.destroy();
    });
    upstream.end(body);
  }
}

describe.each(['legacy', 'auto'] as const)(
  'retry, protocol: %s, a node killed mid-call',
  (protocol) => {
    let directory: string;
    let nodes: Node[];
    let proxy: FailoverProxy;
    let client: McpClient;

    beforeEach(async () => {
      directory = mkdtempSync(join(tmpdir(), 'agcore-retry-'));
      nodes = [await startNode(directory), await startNode(directory)];
      proxy = new FailoverProxy(nodes.map((node) => node.port));
      const url = await proxy.listen();
      // Far beyond the test's own limit: a call that waited for its time limit would fail the test.
      client = new McpClient(
        'fleet',
        { type: 'streamable-http', url },
        { protocol, timeoutMs: 600_000, retry: { attempts: 3, backoffMs: 50 } },
      );
      await client.connect();
    }, 30_000);

    afterEach(async () => {
      await client.close();
      for (const node of nodes) node.child.kill('SIGKILL');
      await new Promise((resolve) => proxy.server.close(resolve));
      rmSync(directory, { recursive: true, force: true });
    });

    /** Calls `hold`, kills the first node once the effect is committed, returns the outcome. */
    async function callAndKill(id: string, idempotencyKey?: string): Promise<unknown> {
      writeFileSync(join(directory, `hold-${id}`), '');
      const call = client
        .callTool('hold', { id }, idempotencyKey === undefined ? {} : { idempotencyKey })
        .then(
          (result) => result.value,
          (error: unknown) => error,
        );
      const effect = join(
        directory,
        `effect-${encodeURIComponent(idempotencyKey ?? `none-${id}`)}`,
      );
      // Committed = the file holds the node's pid (it is created with O_EXCL, then written: a
      // kill between the two left it empty once under load).
      await expect
        .poll(() => existsSync(effect) && readFileSync(effect, 'utf8') !== '', { timeout: 10_000 })
        .toBe(true);
      // Killed while it holds (so it cannot answer first), then released for the other node;
      // both before this process's client can send anything again.
      nodes[0]?.child.kill('SIGKILL');
      rmSync(join(directory, `hold-${id}`));
      return call;
    }

    const effects = () => readdirSync(directory).filter((name) => name.startsWith('effect-'));

    it('makes a call carrying an idempotency key again on the other node: it answers once, its effect happened once', async () => {
      const value = await callAndKill('a', 'run-1:call-1');
      expect(value).toEqual({ id: 'a', pid: nodes[1]?.child.pid });
      expect(effects()).toEqual([`effect-${encodeURIComponent('run-1:call-1')}`]);
      expect(readFileSync(join(directory, effects()[0] ?? ''), 'utf8')).toBe(
        String(nodes[0]?.child.pid),
      );
      expect(proxy.calls.get(nodes[0]?.port ?? 0)).toBe(1);
      expect(proxy.calls.get(nodes[1]?.port ?? 0)).toBe(1);
    }, 30_000);

    it('fails a call that is not safe to repeat at once, with mcp_error, and never sends it again', async () => {
      const error = (await callAndKill('b')) as McpToolError;
      expect(error.code, String(error)).toBe('mcp_error');
      expect(effects()).toEqual(['effect-none-b']);
      expect(proxy.calls.get(nodes[0]?.port ?? 0)).toBe(1);
      expect(proxy.calls.get(nodes[1]?.port ?? 0)).toBeUndefined();
      // The client stays usable: the next call reaches the living node.
      expect(await client.callTool('hold', { id: 'c' })).toMatchObject({
        value: { id: 'c', pid: nodes[1]?.child.pid },
      });
    }, 30_000);
  },
);
