// `pnpm --filter @agcore/runtimes bench [other llm-cycle dirs]`: what `cycle.state()` and
// `new LlmCycle({ state })` cost on a paused run with a long history (200 messages of ~600
// characters, a state secret, so both hash the whole history), for this repository's llm-cycle
// and, as ratios to it (median of 30 alternating rounds), for the built llm-cycle of each other
// directory given (another checkout: its run seal before or after a change).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const ours = path.join(here, '../../../packages/llm-cycle');
const dirs = [ours, ...process.argv.slice(2)].map((dir) => path.resolve(dir));
const { ToolRegistry } = await import('@agcore/tools-registry');
const { PermissionChecker } = await import('@agcore/tools-permission');

const tools = new ToolRegistry({ permissionChecker: new PermissionChecker() }).register({
  name: 'send_mail',
  description: 'Sends a mail',
  parameters: { type: 'object', properties: { to: { type: 'string' } } },
  needsApproval: true,
  execute: async () => 'sent',
});
const filler = 'The quick brown fox jumps over the lazy dog, and the café serves 中文 too. '.repeat(
  8,
);
const messages = Array.from({ length: 200 }, (_, index) => ({
  role: index % 2 === 0 ? 'user' : 'assistant',
  content: `${index}: ${filler}`,
}));
const stateSecret = 'a state secret of at least thirty-two bytes';

/** A paused cycle of the llm-cycle in `dir`, and the two operations to time. */
async function contender(dir) {
  const load = (entry) => import(pathToFileURL(path.join(dir, 'dist', entry)).href);
  const { LlmCycle } = await load('index.js');
  const { ScriptedProvider, textResponse, toolCallsResponse } = await load('testing/index.js');
  const provider = new ScriptedProvider([
    toolCallsResponse([{ name: 'send_mail', arguments: { to: 'ada@example.com' }, id: 'call_1' }]),
    textResponse('done'),
  ]);
  const cycle = new LlmCycle({ provider, model: 'bench', messages, stateSecret });
  const response = await cycle.submitWithTools('Mail Ada.', tools);
  if (response.interruptions === undefined) throw new Error('the run did not pause');
  const state = cycle.state();
  return {
    dir,
    bytes: JSON.stringify(state).length,
    write: () => cycle.state(),
    read: () => new LlmCycle({ provider, model: 'bench', state, stateSecret }),
    times: { write: [], read: [] },
  };
}

const contenders = [];
for (const dir of dirs) contenders.push(await contender(dir));
const timed = (body) => {
  const start = performance.now();
  for (let call = 0; call < 20; call++) body();
  return (performance.now() - start) / 20;
};
// Rounds alternate the contenders, so that a busy machine slows them alike.
for (let round = 0; round < 31; round++) {
  for (const each of round % 2 === 0 ? contenders : [...contenders].reverse()) {
    const write = timed(each.write);
    const read = timed(each.read);
    if (round > 0) {
      each.times.write.push(write);
      each.times.read.push(read);
    }
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const [base] = contenders;
for (const each of contenders) {
  const write = median(each.times.write);
  const read = median(each.times.read);
  const ratio = (value, of) => (value / median(base.times[of])).toFixed(2);
  process.stdout.write(
    `${each.dir}\n  state of ${each.bytes} bytes: state() ${write.toFixed(3)} ms (${ratio(write, 'write')}x), new LlmCycle({ state }) ${read.toFixed(3)} ms (${ratio(read, 'read')}x)\n`,
  );
}
