// The fleet nodes' store, held after one commit (fleet-node.ts on the hub, pg-fleet-node.ts on
// Postgres): a node to SIGKILL after the store committed a call, before its answer.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { IdempotencyStore } from '../index.js';

const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

/**
 * `shared`, held after one commit. Once it committed the call whose `hold-commit-<key>` exists in
 * `directory`, this node takes no other key (its reservations wait for ever), writes
 * `committed-<key>.<pid>`, then, once no other call of its own is between reservation and
 * commit, `quiet-<pid>`, and holds that call's answer while the file exists: a node to kill
 * after a commit, with no other call mid-tool.
 */
export function heldStore(shared: IdempotencyStore, directory: string): IdempotencyStore {
  let frozen = false;
  let pending = 0;
  let holding = 0;
  return {
    get: (key) => shared.get(key),
    reserve: async (key, leaseMs) => {
      while (frozen) await pause();
      pending += 1;
      try {
        const found = await shared.reserve(key, leaseMs);
        if (found.state === 'reserved') holding += 1;
        return found;
      } finally {
        pending -= 1;
      }
    },
    release: async (key) => {
      holding -= 1;
      await shared.release(key);
    },
    set: async (key, value) => {
      await shared.set(key, value);
      holding -= 1;
      // serveTools scopes a key as [caller, tool, key]; the test names the call's own key.
      const name = encodeURIComponent(String((JSON.parse(key) as unknown[])[2]));
      if (!existsSync(join(directory, `hold-commit-${name}`))) return;
      frozen = true;
      await writeFile(join(directory, `committed-${name}.${process.pid}`), '');
      while (pending > 0 || holding > 0) await pause();
      await writeFile(join(directory, `quiet-${process.pid}`), '');
      while (existsSync(join(directory, `hold-commit-${name}`))) await pause();
    },
  };
}
