import { rmSync } from 'node:fs';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ToolError } from '@agcore/tools-core';

/** A temp directory with a few sample files, the only place the file tools may touch. */
export interface Sandbox {
  /** Its absolute, symlink-free path. */
  readonly dir: string;
  /** Deletes it. Safe to call twice; never throws. */
  remove(): Promise<void>;
  /** Deletes it at once, for a process that is exiting (no await possible). Never throws. */
  removeSync(): void;
}

const notes = `Playground notes
================
- agcore turns tools and MCP servers into one registry the model can call.
- Permissions are checked before a tool runs; the default policy allows read and network.
- Try: pnpm playground --flow filesystem --allow write
`;

const cities = `city,country,population_millions
Beijing,China,21.9
Shanghai,China,24.9
London,United Kingdom,8.9
Paris,France,2.1
Tokyo,Japan,14.0
`;

/** A deterministic web-server log, large enough (about 40 KB) to show result truncation. */
function accessLog(): string {
  const paths = ['/', '/docs', '/api/tools', '/api/chat', '/static/app.js', '/favicon.ico'];
  const statuses = [200, 200, 200, 304, 404, 500];
  const lines: string[] = [];
  for (let index = 0; index < 400; index += 1) {
    const second = String(index % 60).padStart(2, '0');
    const minute = String(Math.floor(index / 60) % 60).padStart(2, '0');
    const requestPath = paths[index % paths.length];
    const status = statuses[(index * 7) % statuses.length];
    lines.push(
      `127.0.0.1 - - [01/Jan/2026:10:${minute}:${second} +0000] "GET ${requestPath} HTTP/1.1" ${status} ${(index * 37) % 5000} "-" "agcore-playground/0.1"`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Makes the sandbox: `notes.txt`, `cities.csv` and `access.log` in a fresh temp dir.
 *
 * @throws {Error} when the temp dir cannot be created or written (a full or read-only disk).
 */
export async function createSandbox(): Promise<Sandbox> {
  const dir = await realpath(await mkdtemp(path.join(tmpdir(), 'agcore-playground-')));
  await Promise.all([
    writeFile(path.join(dir, 'notes.txt'), notes),
    writeFile(path.join(dir, 'cities.csv'), cities),
    writeFile(path.join(dir, 'access.log'), accessLog()),
  ]);
  return {
    dir,
    remove: async () => {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    },
    removeSync: () => {
      try {
        rmSync(dir, { recursive: true, force: true });
      } catch {
        // Nothing more can be done on the way out.
      }
    },
  };
}

/**
 * The real path of `requested` inside `sandboxDir`, for a tool that `verb`s files there: a path
 * that leaves it (`..`, an absolute path elsewhere, a symlink pointing out) or does not exist is
 * a recoverable `execution_failed`.
 */
export async function sandboxPath(
  sandboxDir: string,
  requested: string,
  toolName: string,
  verb: string,
): Promise<string> {
  const root = await realpath(sandboxDir);
  const outside = (candidate: string) =>
    candidate !== root && !candidate.startsWith(root + path.sep);
  if (outside(path.resolve(root, requested))) {
    throw new ToolError(
      'execution_failed',
      `'${requested}' is outside the sandbox; ${toolName} only ${verb} files under the sandbox directory.`,
      { toolName },
    );
  }
  let resolved: string;
  try {
    resolved = await realpath(path.resolve(root, requested));
  } catch {
    throw new ToolError('execution_failed', `No such file in the sandbox: '${requested}'.`, {
      toolName,
    });
  }
  if (outside(resolved)) {
    throw new ToolError(
      'execution_failed',
      `'${requested}' links outside the sandbox; ${toolName} refuses it.`,
      { toolName },
    );
  }
  return resolved;
}
