// The fleet behind a balancer with no health checks, as a Kubernetes Service between a pod's
// death and its endpoint's removal, or a simple Node proxy: a round-robin HTTP proxy on
// 127.0.0.1 that sends each request to the next node, dead or not. A request that lands on a
// dead node has its connection reset (the node refused it) until the client moves on.
import { mkdtempSync, rmSync } from 'node:fs';
import {
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type FleetNode, freePort, startNode } from './haproxy-fleet.js';

/** What the balancer did. */
interface BalancerCounts {
  /** Requests whose node refused the connection (the client's was reset). */
  refused: number;
}

/** Passes one request to the node on `port`; a refused or broken one resets the client's connection. */
function forward(
  incoming: IncomingMessage,
  response: ServerResponse,
  port: number,
  counts: BalancerCounts,
): void {
  const upstream = request(
    {
      host: '127.0.0.1',
      port,
      method: incoming.method,
      path: incoming.url,
      headers: incoming.headers,
    },
    (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
      answer.once('error', () => response.destroy());
      answer.once('aborted', () => response.destroy());
    },
  );
  upstream.once('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'ECONNREFUSED') counts.refused += 1;
    if (response.headersSent) response.destroy();
    else incoming.socket.resetAndDestroy();
  });
  incoming.pipe(upstream);
  // The client went away (a cancelled call): so does its request to the node.
  response.once('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
}

/** A running fleet: its MCP endpoint through the plain balancer, its nodes, the folder they share. */
export class PlainFleet {
  private constructor(
    /** The folder the nodes write their side effects and shared idempotency store to. */
    readonly directory: string,
    /** The MCP endpoint through the balancer. */
    readonly url: string,
    readonly nodes: readonly FleetNode[],
    private readonly balancer: Server,
    /** What the balancer did: connections a dead node refused. */
    readonly counts: BalancerCounts,
  ) {}

  /** Starts `size` nodes and the balancer in front of them. */
  static async start(size = 3): Promise<PlainFleet> {
    const directory = mkdtempSync(join(tmpdir(), 'agcore-plain-fleet-'));
    const nodes: FleetNode[] = [];
    for (let index = 0; index < size; index += 1) {
      nodes.push(await startNode(`n${index}`, await freePort(), directory));
    }
    let next = 0;
    const counts: BalancerCounts = { refused: 0 };
    const balancer = createServer((incoming, response) => {
      const node = nodes[next % nodes.length] as FleetNode;
      next += 1;
      forward(incoming, response, node.port, counts);
    });
    await new Promise<void>((resolve) => balancer.listen(0, '127.0.0.1', resolve));
    const address = balancer.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    return new PlainFleet(directory, `http://127.0.0.1:${port}/mcp`, nodes, balancer, counts);
  }

  /** The node whose process id is `pid`. */
  nodeOf(pid: number): FleetNode | undefined {
    return this.nodes.find((node) => node.child.pid === pid);
  }

  /** Stops the balancer and every node (SIGKILL) and removes the shared folder. */
  close(): void {
    this.balancer.closeAllConnections();
    this.balancer.close();
    for (const node of this.nodes) node.child.kill('SIGKILL');
    rmSync(this.directory, { recursive: true, force: true });
  }
}
