import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { tokenKeyString } from './token-store.js';
import type { McpTokenStore, McpTokens } from './types.js';

type TokenFile = Record<string, McpTokens>;

/**
 * A token store in a JSON file that only its owner can read or write (mode 0600, set on every
 * write; the file is replaced whole, so a crash leaves the old one). Writes of one store run
 * one at a time. Node only: import it from `@agcore/tools-mcp/node`.
 *
 * @throws {Error} from `get`/`set`/`delete` when the file cannot be read or written (a file
 *   that is not JSON counts as empty and is replaced on the next write).
 */
export function createFileTokenStore(path: string): McpTokenStore {
  let queue: Promise<unknown> = Promise.resolve();
  const update = (change: (file: TokenFile) => void): Promise<void> => {
    const next = queue.then(async () => {
      const file = await readTokenFile(path);
      change(file);
      await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
      await chmod(temporary, 0o600);
      await rename(temporary, path);
    });
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    get: async (key) => (await readTokenFile(path))[tokenKeyString(key)],
    set: (key, tokens) =>
      update((file) => {
        file[tokenKeyString(key)] = tokens;
      }),
    delete: (key) =>
      update((file) => {
        delete file[tokenKeyString(key)];
      }),
  };
}

async function readTokenFile(path: string): Promise<TokenFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return Object.create(null);
    throw error;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return Object.assign(Object.create(null), parsed) as TokenFile;
    }
  } catch {
    // Not JSON: treated as empty, replaced on the next write.
  }
  return Object.create(null);
}
