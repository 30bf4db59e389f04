import path from 'node:path';
import type { Flow, ScriptedTurn } from './flow-types.js';
import { approveFlow, askBackFlow, loopFlow, resumeFlow } from './flows-approval.js';
import { durableFlow } from './flows-durable.js';

export type {
  Flow,
  FlowContext,
  FlowExpectation,
  ScriptedToolCall,
  ScriptedTurn,
} from './flow-types.js';

const tour: Flow = {
  name: 'tour',
  summary:
    'The default: two tools in parallel, a calculator, an MCP server with a live progress bar.',
  servers: ['everything'],
  prompt: () =>
    'What is the weather in Beijing and London, and what is their average temperature? Then run the MCP long-running operation (2 seconds, 4 steps) so I can see its progress.',
  script: (): ScriptedTurn[] => [
    {
      text: 'I will look up both cities at once.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Beijing' } },
        { name: 'get_weather', arguments: { city: 'London' } },
      ],
    },
    {
      text: 'Beijing is 22 °C and London 14 °C. Now the average:',
      toolCalls: [{ name: 'calculator', arguments: { expression: '(22 + 14) / 2' } }],
    },
    {
      text: 'The average is 18 °C. Now the long-running operation on the MCP server:',
      toolCalls: [
        {
          name: 'everything__trigger-long-running-operation',
          arguments: { duration: 2, steps: 4 },
        },
      ],
    },
    {
      text: 'Done. Beijing is sunny at 22 °C, London has light rain at 14 °C; the average is 18 °C. The MCP operation finished its 4 steps, reporting progress along the way.',
    },
  ],
  expects: () => 'complete',
};

const weather: Flow = {
  name: 'weather',
  summary: "The design's two-turn example: get_weather, then the answer.",
  servers: [],
  prompt: () => 'What is the weather in Beijing?',
  script: (): ScriptedTurn[] => [
    {
      text: 'Let me check the weather in Beijing...',
      toolCalls: [{ name: 'get_weather', arguments: { city: 'Beijing' } }],
    },
    { text: 'It is 22 °C and sunny in Beijing today, with 31% humidity.' },
  ],
  expects: () => 'complete',
};

const parallel: Flow = {
  name: 'parallel',
  summary:
    "Two tools in one turn, run in parallel (the design's invoke_all example: get_weather and read_file).",
  servers: [],
  prompt: () => 'What is the weather in Beijing, and what does notes.txt say?',
  script: (): ScriptedTurn[] => [
    {
      text: 'Checking the weather and reading the notes at the same time.',
      toolCalls: [
        { name: 'get_weather', arguments: { city: 'Beijing' } },
        { name: 'read_file', arguments: { path: 'notes.txt' } },
      ],
    },
    {
      text: 'Beijing is sunny at 22 °C. notes.txt says agcore turns tools and MCP servers into one registry, checks permissions before a tool runs, and suggests trying the filesystem flow with --allow write.',
    },
  ],
  expects: () => 'complete',
};

const mcp: Flow = {
  name: 'mcp',
  summary:
    'Tools from @modelcontextprotocol/server-everything: echo, get-sum, a long run with progress.',
  servers: ['everything'],
  prompt: () =>
    'Use the MCP tools: echo "hello from agcore", add 17 and 25 with get-sum, then run the long-running operation for 3 seconds in 6 steps.',
  script: (): ScriptedTurn[] => [
    {
      text: 'Calling echo and get-sum on the MCP server.',
      toolCalls: [
        { name: 'everything__echo', arguments: { message: 'hello from agcore' } },
        { name: 'everything__get-sum', arguments: { a: 17, b: 25 } },
      ],
    },
    {
      text: '17 + 25 = 42. Now the long-running operation:',
      toolCalls: [
        {
          name: 'everything__trigger-long-running-operation',
          arguments: { duration: 3, steps: 6 },
        },
      ],
    },
    { text: 'The server echoed the message, summed 17 and 25 to 42, and finished all 6 steps.' },
  ],
  expects: () => 'complete',
};

const filesystem: Flow = {
  name: 'filesystem',
  summary:
    '@modelcontextprotocol/server-filesystem on a temp dir: reads pass, a write is refused unless --allow write.',
  servers: ['filesystem'],
  prompt: ({ sandboxDir }) =>
    `List the files in ${sandboxDir}, read notes.txt there, and write a one-line summary of it to summary.txt in the same directory.`,
  script: ({ sandboxDir, allows }) => {
    const turns: ScriptedTurn[] = [
      {
        text: 'Listing the directory and reading the notes.',
        toolCalls: [
          { name: 'filesystem__list_directory', arguments: { path: sandboxDir } },
          {
            name: 'filesystem__read_text_file',
            arguments: { path: path.join(sandboxDir, 'notes.txt') },
          },
        ],
      },
      {
        text: 'Now writing the summary.',
        toolCalls: [
          {
            name: 'filesystem__write_file',
            arguments: {
              path: path.join(sandboxDir, 'summary.txt'),
              content: 'agcore: one registry for tools and MCP servers, permission-checked.\n',
            },
          },
        ],
      },
    ];
    if (allows(['write'])) {
      turns.push({ text: 'I listed the sandbox, read notes.txt and saved summary.txt.' });
    }
    return turns;
  },
  expects: ({ allows }) => (allows(['write']) ? 'complete' : 'permission_denied'),
  hint: (_context, outcome) =>
    outcome === 'permission_denied'
      ? 'The default policy allows read and network only. Run again with --allow write to let write_file through.'
      : undefined,
};

const denied: Flow = {
  name: 'denied',
  summary:
    'A shell tool refused by the permission checker: the loop ends, the history stays whole.',
  servers: [],
  prompt: () => 'Run `ls -la` in the sandbox and tell me what is there.',
  script: ({ allows }) => {
    const turns: ScriptedTurn[] = [
      {
        text: 'I will run the command.',
        toolCalls: [{ name: 'run_shell', arguments: { command: 'ls -la' } }],
      },
    ];
    if (allows(['shell'])) turns.push({ text: 'Those are the files in the sandbox.' });
    return turns;
  },
  expects: ({ allows }) => (allows(['shell']) ? 'complete' : 'permission_denied'),
  hint: (_context, outcome) =>
    outcome === 'permission_denied'
      ? 'run_shell needs the shell permission, which this policy denies (the default one does); --allow shell lets it run.'
      : undefined,
};

const recover: Flow = {
  name: 'recover',
  summary: 'Invalid arguments go back to the model, which corrects itself on the next turn.',
  servers: [],
  prompt: () => 'What is 6 times 7? Use the calculator.',
  script: (): ScriptedTurn[] => [
    {
      text: 'Using the calculator.',
      toolCalls: [{ name: 'calculator', arguments: { expr: '6 * 7' } }],
    },
    {
      text: 'The calculator wants an "expression" argument; trying again.',
      toolCalls: [{ name: 'calculator', arguments: { expression: '6 * 7' } }],
    },
    { text: '6 times 7 is 42.' },
  ],
  expects: () => 'complete',
};

const maxTurns: Flow = {
  name: 'max-turns',
  summary: 'A model that never stops calling tools hits maxTurns (3); the history so far is kept.',
  servers: [],
  maxTurns: 3,
  prompt: () => 'Tell me the weather in every city you know, one city per turn.',
  script: (): ScriptedTurn[] =>
    ['Beijing', 'Shanghai', 'London', 'Paris'].map((city) => ({
      text: `Next: ${city}.`,
      toolCalls: [{ name: 'get_weather', arguments: { city } }],
    })),
  expects: () => 'max_turns_exceeded',
};

const truncation: Flow = {
  name: 'truncation',
  summary:
    'A 40 KB tool result is cut to maxToolResultBytes (2 KiB) for the model, kept whole in the event.',
  servers: [],
  maxToolResultBytes: 2048,
  prompt: () => 'Read access.log and tell me what kind of requests it holds.',
  script: (): ScriptedTurn[] => [
    {
      text: 'Reading the log.',
      toolCalls: [{ name: 'read_file', arguments: { path: 'access.log' } }],
    },
    {
      text: 'The log was truncated to 2 KiB for me; the part I saw holds GET requests to /, /docs and /api with statuses 200, 304, 404 and 500.',
    },
  ],
  expects: () => 'complete',
};

const timeout: Flow = {
  name: 'timeout',
  summary:
    'A tool that outlives its timeout (1.5 s): a recoverable error, the model tries a shorter run.',
  servers: [],
  toolTimeoutMs: 1500,
  prompt: () => 'Run slow_task for 5 seconds. If it times out, run it for half a second instead.',
  script: (): ScriptedTurn[] => [
    {
      text: 'Starting the 5-second task.',
      toolCalls: [{ name: 'slow_task', arguments: { seconds: 5 } }],
    },
    {
      text: 'It timed out after 1.5 s; running the short one.',
      toolCalls: [{ name: 'slow_task', arguments: { seconds: 0.5 } }],
    },
    { text: 'The 5-second task timed out, the half-second one finished.' },
  ],
  expects: () => 'complete',
};

const cancel: Flow = {
  name: 'cancel',
  summary:
    'Press Ctrl-C while an MCP tool runs: it stops cleanly, the history is printed, nothing is left running.',
  servers: ['everything'],
  note: 'Press Ctrl-C while the operation runs to cancel it (it would take 30 s).',
  prompt: () => 'Run the MCP long-running operation for 30 seconds in 30 steps.',
  script: (): ScriptedTurn[] => [
    {
      text: 'Starting the 30-second operation.',
      toolCalls: [
        {
          name: 'everything__trigger-long-running-operation',
          arguments: { duration: 30, steps: 30 },
        },
      ],
    },
    { text: 'The operation finished all 30 steps.' },
  ],
  expects: () => 'any',
};

/** Every flow, in `--list` order. The first is the default. */
export const flows: readonly Flow[] = [
  tour,
  weather,
  parallel,
  mcp,
  filesystem,
  denied,
  recover,
  maxTurns,
  truncation,
  timeout,
  cancel,
  approveFlow,
  askBackFlow,
  resumeFlow,
  loopFlow,
  durableFlow,
];

/** The flow `pnpm playground` runs when no `--flow` is given. */
export const defaultFlowName = 'tour';

/** The flow called `name`, or `undefined`. Never throws. */
export function findFlow(name: string): Flow | undefined {
  return flows.find((flow) => flow.name === name);
}
