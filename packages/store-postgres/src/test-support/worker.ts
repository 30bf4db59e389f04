// One process of a cross-process test (started by children.ts): prints `ready`, waits for
// `go` on stdin, does its part against Postgres, prints one JSON line.

import { once } from 'node:events';
import { appendFileSync, readFileSync } from 'node:fs';
import { LlmCycle, LlmError, type RunState } from '@agcore/llm-cycle';
import { ScriptedProvider, textResponse } from '@agcore/llm-cycle/testing';
import { createPostgresStores } from '../index.js';
import { deleteRegistry } from './run-kit.js';
import { handleIn, longReport, spillOnce } from './spill-kit.js';

const [mode = '', url = '', schema = '', ...rest] = process.argv.slice(2);
const stores = createPostgresStores({ connectionString: url }, { schema });

async function claims(runId: string, epoch: number, count: number): Promise<unknown> {
  const answers = await Promise.all(
    Array.from({ length: count }, () => stores.runStore.claim(runId, epoch)),
  );
  return { granted: answers.filter(Boolean).length };
}

async function resumeOnce(stateFile: string, ledger: string): Promise<unknown> {
  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as RunState;
  const cycle = new LlmCycle({
    provider: new ScriptedProvider([textResponse('Deleted.')]),
    model: 'test',
    state,
    runStore: stores.runStore,
  });
  const pending = cycle.interruptions().map((item) => item.callId);
  const decisions = Object.fromEntries(pending.map((id) => [id, 'approve' as const]));
  const registry = deleteRegistry(() => appendFileSync(ledger, `${process.pid}\n`));
  try {
    const response = await cycle.resume(decisions, registry);
    return { outcome: 'ok', text: response.message.content };
  } catch (error) {
    return { outcome: LlmError.isInstance(error) ? error.code : String(error) };
  }
}

/** Subscribes, says `listening` once the feed listens, and resolves the first change heard. */
async function hear(): Promise<unknown> {
  const heard = new Promise((resolve) => {
    stores.changes.subscribe(resolve);
  });
  await stores.changes.listening();
  process.stdout.write('listening\n');
  return { heard: await heard };
}

async function main(): Promise<unknown> {
  switch (mode) {
    case 'migrate':
      return { applied: await stores.migrate() };
    case 'claim':
      return claims(rest[0] ?? '', Number(rest[1]), Number(rest[2]));
    case 'resume':
      return resumeOnce(rest[0] ?? '', rest[1] ?? '');
    case 'put':
      await stores.resultStore.put(rest[0] ?? '', readFileSync(rest[1] ?? '', 'utf8'), 'run');
      return { put: true };
    case 'spill':
      return { handle: handleIn(await spillOnce(stores.resultStore, longReport(Number(rest[0])))) };
    case 'hear':
      return hear();
    case 'get':
      return { content: (await stores.resultStore.get(rest[0] ?? '')) ?? null };
    default:
      throw new Error(`unknown mode ${mode}`);
  }
}

process.stdout.write('ready\n');
process.stdin.setEncoding('utf8');
let input = '';
while (!input.includes('go')) {
  const [chunk] = (await once(process.stdin, 'data')) as [string];
  input += chunk;
}
try {
  process.stdout.write(`${JSON.stringify(await main())}\n`);
} finally {
  await stores.close();
}
