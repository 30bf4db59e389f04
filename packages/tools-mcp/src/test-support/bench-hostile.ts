// The round-trip bench's hostile-schema figures: listings in fresh processes.
import { execFileSync } from 'node:child_process';
import { hostileServer } from './servers.js';

/**
 * Lists the hostile server's `tools` (and calls `call`) in a fresh process on the built package `entry`
 * (no TypeScript loader in the way): elapsed ms and the longest event-loop block.
 */
function hostileListing(
  entry: string,
  packageRoot: string,
  tools: string,
  call: string | undefined,
): { elapsed: number; blocked: number; listed: number; outcome: string } {
  const server = hostileServer('schemas', { env: { FAULT_SCHEMAS: tools } });
  const script = `
        const { monitorEventLoopDelay } = await import('node:perf_hooks');
    const { McpClient } = await import(${JSON.stringify(entry)});
    const client = new McpClient('hostile', ${JSON.stringify(server)}, { onWarning: () => {} });
    await client.connect();
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const start = performance.now();
    const listed = (await client.listTools()).length;
    const call = ${JSON.stringify(call ?? null)};
    const outcome = call === null ? '' : await client.callTool(call).then(
      () => 'accepted (!)',
      (error) => error.code ?? 'failed',
    );
    const elapsed = performance.now() - start;
    loop.disable();
    await client.close();
    process.stdout.write(JSON.stringify({ elapsed, blocked: loop.max / 1e6, listed, outcome }));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: packageRoot,
  });
  return JSON.parse(output.toString()) as ReturnType<typeof hostileListing>;
}

/**
 * Hostile schemas: a $ref/anyOf chain worth 2^40 paths and ^(a+)+$ (with a call whose output
 * 'aaaa…b' meets the pattern), then a tool nested 100 000 levels deep (a 7.4 MB line, which
 * the SDK's stdio transport must JSON.parse before anything else can look at it).
 */
export function hostileSchemas(entry: string, packageRoot: string): string[] {
  const schemas = hostileListing(entry, packageRoot, 'plain,redos,ref-bomb', 'redos');
  const deep = hostileListing(entry, packageRoot, 'plain,deep', undefined);
  return [
    `Hostile schemas: listing plain, redos, ref-bomb (ref-bomb refused, ${schemas.listed} listed) and the ^(a+)+$ call (${schemas.outcome}) took ${schemas.elapsed.toFixed(1)} ms, the event loop blocked ${schemas.blocked.toFixed(1)} ms at most (target ~50 ms);`,
    `a tool nested 100 000 levels deep (refused, ${deep.listed} listed): ${deep.elapsed.toFixed(1)} ms, blocked ${deep.blocked.toFixed(1)} ms at most (the SDK's stdio transport JSON.parses the 7.4 MB line before anything else sees it; maxMessageBytes bounds it).`,
    '',
  ];
}

/** Calls each contender 500 times (JIT, server caches) and checks that every path echoes. */
