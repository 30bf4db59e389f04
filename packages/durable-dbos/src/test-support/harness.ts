// Drives worker processes and the model for the durable tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  type StreamedCall,
  startChatCompletionsServer,
  textStream,
  toolCallStream,
} from '@agcore/llm-cycle/testing';
import { DBOSClient } from '@dbos-inc/dbos-sdk';

const workerPath = fileURLToPath(new URL('./worker.ts', import.meta.url));

/** A worker child process. */
export interface Worker {
  readonly child: ChildProcess;
  readonly output: string[];
  kill(): Promise<void>;
}

/** Starts a worker and waits for its `ready` line. */
export async function startWorker(env: Record<string, string>): Promise<Worker> {
  const child = spawn(process.execPath, ['--import', 'tsx', workerPath], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (line === '') continue;
        output.push(line);
        if (line === 'ready') resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${String(code)}): ${errors}`)));
  });
  return {
    child,
    output,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  };
}

/** How the model answers; change it between tests. */
export interface ModelSettings {
  /** The pieces of the final answer. */
  text: string[];
  /** Milliseconds between two SSE writes (0: all at once). */
  pauseMs: number;
  /** The id of the tool call ('' for a server that sends none). */
  callId: string;
  /** The calls of the first answer instead of the one `send_email` call with `callId`. */
  calls?: StreamedCall[];
}

/** A call of the first answer: `name` with `{ to }` (`id` '' for a call that comes without one). */
export function call(id: string, name: string, to: string): StreamedCall {
  return { id, name, pieces: ['{"to":', `${JSON.stringify(to)}}`] };
}

/**
 * The model: a tool call to `send_email` first (`send_gated` for a prompt that starts `Gated`),
 * then a streamed text once the tool answered; a prompt that starts `Just answer` gets the
 * text at once, one that starts `Fail` a 400.
 */
export async function startModel() {
  const server = await startChatCompletionsServer({ keepAliveTimeoutMs: 1000 });
  const settings: ModelSettings = {
    text: ['Sent ', 'the ', 'email.'],
    pauseMs: 0,
    callId: 'call_1',
  };
  server.fallback((request) => {
    const body = request.body as { messages: { role: string; content?: unknown }[] };
    const last = body.messages.at(-1);
    const pause = settings.pauseMs > 0 ? { pause: settings.pauseMs } : {};
    const direct = last?.role === 'user' && String(last.content).startsWith('Just answer');
    if (last?.role === 'user' && String(last.content).startsWith('Fail'))
      return { kind: 'json', status: 400, body: { error: { message: 'refused', type: 'bad' } } };
    const gated = String(body.messages[0]?.content ?? '').startsWith('Gated');
    if (last?.role === 'tool' || direct)
      return { kind: 'sse', writes: textStream(settings.text), ...pause };
    return {
      kind: 'sse',
      writes: toolCallStream(
        settings.calls ?? [
          call(settings.callId, gated ? 'send_gated' : 'send_email', 'ada@example.com'),
        ],
      ),
      ...pause,
    };
  });
  return Object.assign(server, { settings });
}

/** A client of the system database. */
export function client(url: string): Promise<DBOSClient> {
  return DBOSClient.create({ systemDatabaseUrl: url });
}

/** Polls `check` until it returns a value other than `undefined` (bounded by the test's timeout). */
export async function until<T>(check: () => Promise<T | undefined>, intervalMs = 100): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
