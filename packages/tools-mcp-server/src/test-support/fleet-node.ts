// One process of the fleet test. Args: port, directory, and the URL of the shared hub (its
// idempotency store and change feed, shared-hub.ts; without it a store in files of the
// directory, no feed); prints "ready" on stdout when listening.
// Its registry's tools leave their traces as files in the directory the fleet shares:
// - `write_once` writes an O_EXCL `effect-<key>` file per idempotency key (a side effect that
//   must happen once); each run also leaves `ran-<key>.<pid>` (a call run again on another node
//   shows), then waits while `hold-<key>` exists (so the test can kill the node a call runs on);
// - `slow` writes `started-<id>`, then `aborted-<id>` when its signal aborts;
// - `hold` commits its effect, then waits while `hold-<id>` exists (a node to kill after the
//   commit, before the answer);
// - `count` appends a line to `counter` per run: not idempotent by itself. With the hub, a call
//   whose `hold-commit-<key>` exists is held after the store's commit, before its answer (see
//   held-store.ts: a node to kill then);
// - `add_tool` registers a tool of the name given (once) and publishes `tools_list_changed` when
//   asked to.
import { existsSync } from 'node:fs';
import { appendFile, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defineTool, type JsonValue } from '@agcore/tools-core';
import { ToolRegistry } from '@agcore/tools-registry';
import { type IdempotencyStore, serveTools } from '../index.js';
import { heldStore } from './held-store.js';
import { HubChangeFeed, hubIdempotencyStore } from './hub-client.js';

const [portText = '0', directory = '.', hub] = process.argv.slice(2);

const storeFile = (key: string, kind: 'store' | 'lease'): string =>
  join(directory, `${kind}-${encodeURIComponent(key)}.json`);

/** The committed result under `key`, or undefined. */
async function committed(key: string): Promise<JsonValue | undefined> {
  try {
    return JSON.parse(await readFile(storeFile(key, 'store'), 'utf8')) as JsonValue;
  } catch {
    return undefined;
  }
}

/**
 * A store shared by the fleet's processes: one file per key in `directory`, and a lease file
 * per key made with O_EXCL (its content: when the lease ends); an expired lease is taken over.
 */
const fileStore: IdempotencyStore = {
  get: committed,
  set: async (key, value) => {
    await writeFile(storeFile(key, 'store'), JSON.stringify(value), { flag: 'wx' }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      },
    );
    await rm(storeFile(key, 'lease'), { force: true });
  },
  reserve: async (key, leaseMs) => {
    const value = await committed(key);
    if (value !== undefined) return { state: 'done', value };
    const until = String(Date.now() + leaseMs);
    try {
      await writeFile(storeFile(key, 'lease'), until, { flag: 'wx' });
      return { state: 'reserved' };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const held = Number(await readFile(storeFile(key, 'lease'), 'utf8').catch(() => '0'));
    if (held > Date.now()) return { state: 'in_progress' };
    await writeFile(storeFile(key, 'lease'), until);
    return { state: 'reserved' };
  },
  release: (key) => rm(storeFile(key, 'lease'), { force: true }),
};

// The time limit sizes the lease on a key (limit + max(1 s, 10 %)): a call retried after its node
// died mid-tool waits for that lease to end, then runs again.
const registry = new ToolRegistry({ timeoutMs: 5_000 });
registry.register(
  defineTool({
    name: 'write_once',
    description: 'Writes one file per idempotency key',
    parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execute: async ({ n }, context) => {
      const key = context.idempotencyKey ?? `none-${n}`;
      await writeFile(join(directory, `ran-${encodeURIComponent(key)}.${process.pid}`), '');
      await new Promise((resolve) => setTimeout(resolve, 20));
      while (existsSync(join(directory, `hold-${encodeURIComponent(key)}`))) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      try {
        const file = await open(join(directory, `effect-${encodeURIComponent(key)}`), 'wx');
        await file.writeFile(String(process.pid));
        await file.close();
      } catch (error) {
        if ((error as { code?: string }).code !== 'EEXIST') throw error;
      }
      return { n, pid: process.pid };
    },
  }),
);
registry.register(
  defineTool({
    name: 'slow',
    description: 'Waits until aborted, and says so in a file',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    execute: ({ id }, context) =>
      new Promise((_resolve, reject) => {
        void writeFile(join(directory, `started-${id}`), '');
        context.signal.addEventListener('abort', () => {
          void writeFile(join(directory, `aborted-${id}`), String(process.pid)).finally(() =>
            reject(context.signal.reason),
          );
        });
      }),
  }),
);

registry.register(
  defineTool({
    name: 'hold',
    description: 'Commits one effect file per idempotency key, then waits while hold-<id> exists',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    execute: async ({ id }, context) => {
      const key = context.idempotencyKey ?? `none-${id}`;
      try {
        const file = await open(join(directory, `effect-${encodeURIComponent(key)}`), 'wx');
        await file.writeFile(String(process.pid));
        await file.close();
      } catch (error) {
        if ((error as { code?: string }).code !== 'EEXIST') throw error;
      }
      while (existsSync(join(directory, `hold-${id}`)) && !context.signal.aborted) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { id, pid: process.pid };
    },
  }),
);

registry.register(
  defineTool({
    name: 'count',
    description: 'Appends a line to the counter file per run (not idempotent by itself)',
    parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    execute: async ({ n }, context) => {
      await appendFile(join(directory, 'counter'), `${context.idempotencyKey ?? '-'} ${n}\n`);
      return { n, pid: process.pid };
    },
  }),
);

const changes = hub === undefined ? undefined : new HubChangeFeed(hub);
await changes?.connect();
registry.register(
  defineTool({
    name: 'add_tool',
    description:
      'Registers a tool of the name given, then publishes tools_list_changed (unless told not to)',
    parameters: {
      type: 'object',
      properties: { name: { type: 'string' }, publish: { type: 'boolean' } },
      required: ['name', 'publish'],
    },
    execute: async ({ name, publish }) => {
      if (!registry.has(name)) {
        registry.register(
          defineTool({
            name,
            description: `Added by add_tool`,
            parameters: { type: 'object', properties: {} },
            execute: async () => name,
          }),
        );
      }
      if (publish) await changes?.publish({ kind: 'tools_list_changed' });
      return { name, pid: process.pid };
    },
  }),
);

const served = serveTools(registry, {
  idempotencyStore: hub === undefined ? fileStore : heldStore(hubIdempotencyStore(hub), directory),
  ...(changes === undefined ? {} : { changes }),
  allowedHosts: ['127.0.0.1', 'localhost'],
});
await served.listen({ port: Number(portText) });
process.stdout.write('ready\n');
