import type {
  ChatCallOptions,
  ChatChunk,
  ChatMessage,
  ChatProvider,
  ChatRequest,
  ChatResponse,
} from '@agcore/llm-cycle';
import { ScriptedProvider } from '@agcore/llm-cycle/testing';
import type { ScriptedTurn } from './flows.js';
import { toScriptSteps } from './scripted-model.js';

/** What the scripted chat model understands, shown by `chat` at start and on `/help`. */
export const scriptedChatHelp =
  "The scripted model understands: 'weather in CITY', 'calculate EXPR', 'read FILE', 'run COMMAND', 'sum A B' (MCP), 'long SECONDS' (MCP, with progress), 'write TEXT' (MCP filesystem), 'delete FILE' (needs /allow delete, then your approval), 'transfer AMOUNT to NAME' (asks you above 5000). Use --base-url/--model for a real model.";

/**
 * Decides the scripted chat model's answer from the conversation so far: after tool results it
 * reports them; after a user message it matches a few phrases to tool calls. Never throws.
 */
export function scriptedChatTurn(
  messages: readonly ChatMessage[],
  sandboxDir: string,
): ScriptedTurn {
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') return reportToolResults(messages);
  const text = last?.role === 'user' && typeof last.content === 'string' ? last.content.trim() : '';
  for (const [pattern, answer] of phraseRules) {
    const match = text.match(pattern);
    if (match !== null) return answer(match, sandboxDir);
  }
  return { text: `I am the scripted model, so I only follow a few phrases. ${scriptedChatHelp}` };
}

/** The answer after tool results: the trailing tool messages, each cut to 300 characters. */
function reportToolResults(messages: readonly ChatMessage[]): ScriptedTurn {
  const results: string[] = [];
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (message?.role !== 'tool') break;
    results.unshift(
      message.content.length > 300 ? `${message.content.slice(0, 300)}…` : message.content,
    );
  }
  return { text: `Here is what the tools returned: ${results.join(' | ')}` };
}

/** The phrases the scripted chat model follows, first match wins. */
const phraseRules: readonly (readonly [
  RegExp,
  (match: RegExpMatchArray, sandboxDir: string) => ScriptedTurn,
])[] = [
  [
    /weather (?:in|for) ([\p{L} ]+?)(?: and ([\p{L} ]+?))?[?.!]*$/iu,
    (match) => ({
      text: 'Checking the weather.',
      toolCalls: [match[1], match[2]]
        .filter((city): city is string => city !== undefined)
        .map((city) => ({ name: 'get_weather', arguments: { city: city.trim() } })),
    }),
  ],
  [
    /^(?:calculate|calc|compute)\s+(.+)$/i,
    (match) => ({
      toolCalls: [{ name: 'calculator', arguments: { expression: match[1] ?? '' } }],
    }),
  ],
  [
    /^read\s+(\S+)$/i,
    (match) => ({ toolCalls: [{ name: 'read_file', arguments: { path: match[1] ?? '' } }] }),
  ],
  [
    /^run\s+(.+)$/i,
    (match) => ({ toolCalls: [{ name: 'run_shell', arguments: { command: match[1] ?? '' } }] }),
  ],
  [
    /^sum\s+(-?[\d.]+)\s+(-?[\d.]+)$/i,
    (match) => ({
      toolCalls: [
        { name: 'everything__get-sum', arguments: { a: Number(match[1]), b: Number(match[2]) } },
      ],
    }),
  ],
  [
    /^long\s+([\d.]+)$/i,
    (match) => {
      const seconds = Number(match[1]);
      return {
        text: `Running the MCP long-running operation for ${seconds} s (Ctrl-C cancels it).`,
        toolCalls: [
          {
            name: 'everything__trigger-long-running-operation',
            arguments: { duration: seconds, steps: Math.max(1, Math.round(seconds)) },
          },
        ],
      };
    },
  ],
  [
    /^delete\s+(\S+)$/i,
    (match) => ({ toolCalls: [{ name: 'delete_file', arguments: { path: match[1] ?? '' } }] }),
  ],
  [
    /^transfer\s+([\d.]+)\s+to\s+(.+)$/i,
    (match) => ({
      toolCalls: [
        {
          name: 'transfer_money',
          arguments: { to: (match[2] ?? '').trim(), amount: Number(match[1]) },
        },
      ],
    }),
  ],
  [
    /^write\s+(.+)$/i,
    (match, sandboxDir) => ({
      toolCalls: [
        {
          name: 'filesystem__write_file',
          arguments: { path: `${sandboxDir}/chat.txt`, content: `${match[1] ?? ''}\n` },
        },
      ],
    }),
  ],
];

/**
 * The scripted model of `chat`: a `ScriptedProvider` whose next step is decided, just before
 * each call, by `scriptedChatTurn` from the request's messages.
 */
export class ScriptedChatProvider implements ChatProvider {
  readonly #script = new ScriptedProvider();
  readonly #sandboxDir: string;

  /** Makes the model; `sandboxDir` is where `write` puts its file. */
  constructor(sandboxDir: string) {
    this.#sandboxDir = sandboxDir;
  }

  #prepare(request: ChatRequest): void {
    if (this.#script.remaining() === 0) {
      this.#script.push(...toScriptSteps([scriptedChatTurn(request.messages, this.#sandboxDir)]));
    }
  }

  /** Answers as a whole. @throws {LlmError} `cancelled` when the signal is aborted */
  chat(request: ChatRequest, options?: ChatCallOptions): Promise<ChatResponse> {
    this.#prepare(request);
    return this.#script.chat(request, options);
  }

  /** Answers as a stream. @throws {LlmError} `cancelled` when the signal is aborted */
  chatStream(request: ChatRequest, options?: ChatCallOptions): AsyncIterable<ChatChunk> {
    this.#prepare(request);
    return this.#script.chatStream(request, options);
  }
}
