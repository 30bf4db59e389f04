import type { Flow, ScriptedTurn } from './flow-types.js';

/** A turn that calls one tool destructive enough to need a person, next to one that needs none. */
const cleanUp: ScriptedTurn = {
  text: 'I will check the weather and delete the two files; deleting needs your approval.',
  toolCalls: [
    { name: 'get_weather', arguments: { city: 'Paris' } },
    { name: 'delete_file', arguments: { path: 'access.log' } },
    { name: 'delete_file', arguments: { path: 'cities.csv' } },
  ],
};

const cleanUpAnswer: ScriptedTurn = {
  text: 'Done. Paris is 18 °C; the results above say which files were deleted and which you kept.',
};

/**
 * `approve`: `delete_file` needs approval (and the `delete` permission, which this flow allows:
 * a person decides each call instead of the static policy). The weather call runs at once; the
 * run pauses for the two deletions; a terminal asks y/n per call, piped runs take `--approve`.
 */
export const approveFlow: Flow = {
  name: 'approve',
  summary:
    'A destructive tool needs approval: the safe call runs, the run pauses, you approve or deny each delete (y/n, or --approve yes|no).',
  servers: [],
  allow: ['delete'],
  note: 'delete_file needs approval: answer y or n for each call (piped: --approve yes|no).',
  prompt: () => 'What is the weather in Paris? Then delete access.log and cities.csv.',
  script: () => [cleanUp, cleanUpAnswer],
  expects: () => 'complete',
};

/**
 * `ask-back`: `transfer_money` finds 9 000 € suspicious and asks a person (`awaitInput`); the
 * answer calls it again with `context.input`.
 */
export const askBackFlow: Flow = {
  name: 'ask-back',
  summary:
    'A tool asks back (awaitInput): a suspicious transfer of 9 000 €, freeze the account? (a terminal asks; piped: --answer yes|no).',
  servers: [],
  note: 'transfer_money will ask you a question (piped: --answer TEXT).',
  prompt: () => 'Send 9000 € to ACME Ltd.',
  script: () => [
    {
      text: 'Sending the transfer.',
      toolCalls: [{ name: 'transfer_money', arguments: { to: 'ACME Ltd', amount: 9000 } }],
    },
    { text: 'Done: the result above says whether the money was sent or the account frozen.' },
  ],
  expects: () => 'complete',
};

/**
 * `resume`: pauses like `approve`, then writes the run's state to a file and ends; a second
 * process (`resume FILE`) restores it and goes on.
 */
export const resumeFlow: Flow = {
  name: 'resume',
  summary:
    'Pauses for approval, writes the run state to a file (--state-file) and exits; `resume FILE --approve yes` goes on in another process.',
  servers: [],
  allow: ['delete'],
  savesState: true,
  prompt: () => 'What is the weather in Paris? Then delete access.log and cities.csv.',
  script: () => [cleanUp, cleanUpAnswer],
  expects: ({ resuming }) => (resuming ? 'complete' : 'paused'),
};

/** `loop`: a scripted model that repeats one call; loop detection stops it. */
export const loopFlow: Flow = {
  name: 'loop',
  summary:
    'A model that repeats one call: the 4th is refused (loop_detected), the 5th ends the run, the history is whole.',
  servers: [],
  maxTurns: 8,
  prompt: () => 'What is the weather in Tokyo?',
  script: () =>
    Array.from({ length: 6 }, (_, index) => ({
      text: index === 0 ? 'Checking Tokyo.' : 'Let me check Tokyo again, to be sure.',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Tokyo' } }],
    })),
  expects: () => 'loop_detected',
  hint: (_context, outcome) =>
    outcome === 'loop_detected'
      ? 'loopDetection (default { maxRepeats: 3 }) refused the 4th identical call and stopped the run at the 5th.'
      : undefined,
};
