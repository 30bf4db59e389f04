// Child processes for the cross-process tests: each runs worker.ts in one mode, says `ready`,
// waits for `go` on stdin (so all of them start at once), prints one JSON line and exits.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const workerPath = fileURLToPath(new URL('./worker.ts', import.meta.url));

/** One worker: its process, a promise of its `ready`, and a promise of its JSON answer. */
export interface Child {
  readonly process: ChildProcess;
  readonly ready: Promise<void>;
  readonly answer: Promise<unknown>;
}

/** Starts worker.ts with `args` (mode first). */
export function startChild(args: readonly string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', workerPath, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    if (out.includes('ready\n')) markReady();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const answer = once(child, 'exit').then(([code]) => {
    const line = out
      .split('\n')
      .filter((text) => text.startsWith('{'))
      .at(-1);
    if (code !== 0 || line === undefined) {
      throw new Error(`worker ${args.join(' ')} exited ${String(code)}: ${err}${out}`);
    }
    return JSON.parse(line) as unknown;
  });
  // A worker that dies before it is ready ends the wait too (its answer says why).
  answer.catch(() => markReady());
  return { process: child, ready, answer };
}

/** Starts one worker per `args`, lets them all go at once, and resolves their answers. */
export async function runTogether(all: readonly (readonly string[])[]): Promise<unknown[]> {
  const children = all.map((args) => startChild(args));
  await Promise.all(children.map((child) => child.ready));
  for (const child of children) child.process.stdin?.end('go\n');
  return Promise.all(children.map((child) => child.answer));
}
