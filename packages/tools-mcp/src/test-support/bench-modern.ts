// The v2 engine's callTool latency over Streamable HTTP, against the v2 SDK's own Client and
// the v1 figures (the v1 SDK's Client, McpClient on the legacy engine), in one run. The server
// is the v2 SDK test server (both eras), in this process: it costs every contender alike.
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
} from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpClient } from '../client/mcp-client.js';
import { median, paired, table } from './bench-stats.js';
import { startModernHttp } from './modern-server.js';

interface Subject {
  readonly label: string;
  readonly call: () => Promise<unknown>;
  readonly close: () => Promise<void>;
  readonly wall: number[];
}

const expected = 'Echo: benchmark';

/** Runs the HTTP rounds and returns the report's lines. */
export async function modernReport(
  Mcp: typeof McpClient,
  rounds: number,
  callsPerRound: number,
): Promise<string[]> {
  const server = await startModernHttp({ legacy: 'stateless' });
  const url = new URL(server.url);
  const textOf = (result: object): unknown =>
    ((result as { content?: { text?: unknown }[] }).content ?? [])[0]?.text;
  const subject = (label: string, call: () => Promise<unknown>, close: () => Promise<void>) => ({
    label,
    call,
    close,
    wall: [] as number[],
  });
  const v1 = new ClientV1({ name: 'bench-v1', version: '1.0.0' });
  await v1.connect(new HttpV1(url));
  const v2 = new ClientV2(
    { name: 'bench-v2', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await v2.connect(new HttpV2(url));
  const legacy = new Mcp('bench', { type: 'streamable-http', url: server.url });
  await legacy.connect();
  const modern = new Mcp(
    'bench',
    { type: 'streamable-http', url: server.url },
    { protocol: '2026-07-28' },
  );
  await modern.connect();
  const args = { message: 'benchmark' };
  const subjects: Subject[] = [
    subject(
      'v1 SDK Client (2025-11-25)',
      async () => textOf(await v1.callTool({ name: 'echo', arguments: args })),
      () => v1.close(),
    ),
    subject(
      'McpClient, legacy engine',
      async () => (await legacy.callTool('echo', args)).value,
      () => legacy.close(),
    ),
    subject(
      'v2 SDK Client (2026-07-28)',
      async () => textOf(await v2.callTool({ name: 'echo', arguments: args })),
      () => v2.close(),
    ),
    subject(
      "McpClient, v2 engine ('2026-07-28')",
      async () => (await modern.callTool('echo', args)).value,
      () => modern.close(),
    ),
  ];
  try {
    for (const each of subjects) {
      for (let index = 0; index < 50; index++) {
        const answer = await each.call();
        if (answer !== expected) throw new Error(`${each.label} answered ${String(answer)}`);
      }
    }
    for (let index = 0; index < rounds; index++) {
      for (let offset = 0; offset < subjects.length; offset++) {
        const each = subjects[(index + offset) % subjects.length];
        if (each === undefined) continue;
        const start = performance.now();
        for (let call = 0; call < callsPerRound; call++) await each.call();
        each.wall.push(((performance.now() - start) * 1000) / callsPerRound);
      }
    }
  } finally {
    for (const each of subjects) await each.close();
    await server.stop();
  }
  const [rawV1, , rawV2] = subjects;
  const rows = [
    ['client (HTTP, v2 SDK server)', 'latency µs', '× v1 Client', '× v2 Client'],
    ...subjects.map((each) => [
      each.label,
      median(each.wall).toFixed(1),
      rawV1 === undefined ? '' : `${paired(each.wall, rawV1.wall).toFixed(3)}x`,
      rawV2 === undefined ? '' : `${paired(each.wall, rawV2.wall).toFixed(3)}x`,
    ]),
  ];
  return [
    `echo over Streamable HTTP to a v2 SDK server on 127.0.0.1 (both eras, in this process), ${rounds} rounds x ${callsPerRound} calls per client, interleaved; ratios are medians of the per-round ratios:`,
    '',
    table(rows),
    '',
  ];
}
