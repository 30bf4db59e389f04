// The fleet of the service test: `size` serveTools processes (fleet-node.ts, bundled by
// build-stdio-server.ts) on 127.0.0.1 behind haproxy, with the configuration the README shows
// (balance roundrobin, health checks on /healthz, option abortonclose, no retries of its own),
// sharing an idempotency store and a change feed (shared-hub.ts, in this process).
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetNodePath } from './build-stdio-server.js';
import { SharedHub } from './shared-hub.js';

/** Whether `haproxy` runs on this machine. */
export const haproxyFound = spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0;

/** One serveTools process of the fleet, `n<index>` in haproxy's backend `tools`. */
export interface FleetNode {
  readonly name: string;
  readonly port: number;
  readonly child: ChildProcess;
}

/** A port free on 127.0.0.1 now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * What a node runs instead of fleet-node.ts: `node <script…> <port> <directory> <args…>` (say
 * `['--import', 'tsx', 'pg-fleet-node.ts']` and a Postgres URL and schema).
 */
export interface NodeCommand {
  readonly script: readonly string[];
  readonly args: readonly string[];
}

/**
 * Starts one fleet node (fleet-node.ts, or `command`) on `port`; resolves once it listens. With
 * `hub`, its idempotency store and change feed are the shared hub's; without, a store in
 * `directory`.
 */
export function startNode(
  name: string,
  port: number,
  directory: string,
  hub?: string,
  command?: NodeCommand,
): Promise<FleetNode> {
  const args =
    command === undefined
      ? [fleetNodePath, String(port), directory, ...(hub === undefined ? [] : [hub])]
      : [...command.script, String(port), directory, ...command.args];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) =>
      reject(new Error(`fleet node ${name} on ${port} exited with ${String(code)}`)),
    );
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve({ name, port, child });
    });
  });
}

async function untilHealthy(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const ok = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never became healthy`);
}

/** The haproxy configuration of the fleet (the README's "Behind a load balancer"). */
export function haproxyConfig(front: number, stats: number, ports: readonly number[]): string {
  return [
    'global',
    '  maxconn 256',
    'defaults',
    '  mode http',
    '  option abortonclose',
    // Each SSE event (a notification stream's) goes out as it comes, not held for a full packet.
    '  option http-no-delay',
    '  option http-server-close',
    '  retries 0',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    // A node whose event loop is busy answers /healthz late: without this the check times out
    // after `inter` (200 ms) and a loaded machine flaps its nodes DOWN (then haproxy says 503).
    // A killed node refuses the connection at once, so this does not slow its ejection.
    '  timeout check 2s',
    'frontend mcp',
    `  bind 127.0.0.1:${front}`,
    '  http-request set-header Host 127.0.0.1',
    '  default_backend tools',
    'backend tools',
    '  balance roundrobin',
    '  option httpchk GET /healthz',
    ...ports.map(
      (port, index) => `  server n${index} 127.0.0.1:${port} check inter 200ms fall 2 rise 1`,
    ),
    'listen stats',
    `  bind 127.0.0.1:${stats}`,
    '  stats enable',
    '  stats uri /stats',
    '',
  ].join('\n');
}

/** A running fleet: its MCP endpoint through haproxy, its nodes, the folder they share. */
export class HaproxyFleet {
  private constructor(
    /** The folder the nodes write their side effects and shared idempotency store to. */
    readonly directory: string,
    /** The MCP endpoint through haproxy. */
    readonly url: string,
    readonly nodes: readonly FleetNode[],
    /** The idempotency store and change feed the nodes share. */
    readonly hub: SharedHub,
    private readonly haproxy: ChildProcess,
    private readonly statsUrl: string,
  ) {}

  /**
   * Starts `size` nodes (fleet-node.ts on the hub, or `command`) and haproxy in front; resolves
   * once haproxy answers `/healthz`.
   */
  static async start(size = 3, command?: NodeCommand): Promise<HaproxyFleet> {
    const directory = mkdtempSync(join(tmpdir(), 'agcore-fleet-'));
    const hub = await SharedHub.start();
    const nodes: FleetNode[] = [];
    for (let index = 0; index < size; index += 1) {
      nodes.push(await startNode(`n${index}`, await freePort(), directory, hub.url, command));
    }
    const front = await freePort();
    const stats = await freePort();
    const file = join(directory, 'haproxy.cfg');
    writeFileSync(
      file,
      haproxyConfig(
        front,
        stats,
        nodes.map((node) => node.port),
      ),
    );
    const haproxy = spawn('haproxy', ['-f', file, '-db'], { stdio: 'inherit' });
    const fleet = new HaproxyFleet(
      directory,
      `http://127.0.0.1:${front}/mcp`,
      nodes,
      hub,
      haproxy,
      `http://127.0.0.1:${stats}/stats;csv`,
    );
    await untilHealthy(`http://127.0.0.1:${front}/healthz`);
    return fleet;
  }

  /** The node whose process id is `pid`. */
  nodeOf(pid: number): FleetNode | undefined {
    return this.nodes.find((node) => node.child.pid === pid);
  }

  /** haproxy's view of a node: `UP`, `DOWN`, … (its stats CSV `status` column). */
  async status(node: FleetNode): Promise<string> {
    const csv = await (await fetch(this.statsUrl)).text();
    const header = csv.split('\n')[0]?.replace(/^# /, '').split(',') ?? [];
    const row = csv
      .split('\n')
      .find((line) => line.startsWith(`tools,${node.name},`))
      ?.split(',');
    return row?.[header.indexOf('status')] ?? 'missing';
  }

  /** Stops haproxy, every node (SIGKILL) and the hub, and removes the shared folder. */
  async close(): Promise<void> {
    this.haproxy.kill('SIGKILL');
    for (const node of this.nodes) node.child.kill('SIGKILL');
    await this.hub.close();
    rmSync(this.directory, { recursive: true, force: true });
  }
}
