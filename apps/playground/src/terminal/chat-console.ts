import readline from 'node:readline';
import type { Ask } from '../core/decisions.js';
import type { Terminal } from '../core/output.js';

/**
 * The chat's one reader of the input and its writer of notes: the prompt, lines read (echoed
 * when there is no line editing), questions asked inline while a run is paused.
 */
export interface ChatConsole {
  /** The readline interface (its `SIGINT` is the chat's Ctrl-C at the prompt). */
  readonly rl: readline.Interface;
  /** Whether readline edits (and echoes) the line itself. */
  readonly lineEditing: boolean;
  /** Shows the prompt (readline's while it is open, else written directly). */
  prompt(): void;
  /** Writes a line of its own, ending a prompt shown first. */
  say(text: string): void;
  /** The next line read, shared by the prompt and the questions of a paused run. */
  nextLine(): Promise<IteratorResult<string>>;
  /** Echoes a line read at the prompt when nothing else does (no line editing). */
  echoRead(line: string): void;
  /** Asks inline at the prompt; the signal's abort or the end of input gives `undefined`. */
  askInline(signal: AbortSignal, beforeAsking: () => void): Ask;
}

/** Opens the chat's console on `input`. Never throws. */
export function openChatConsole(terminal: Terminal, input: NodeJS.ReadableStream): ChatConsole {
  const c = terminal.colors;
  const lineEditing = process.stdin.isTTY === true && terminal.interactive;
  const promptText = `${c.bold(c.cyan('you'))} ${c.dim('›')} `;
  const rl = readline.createInterface({
    input,
    output: terminal.out,
    terminal: lineEditing,
    prompt: promptText,
    historySize: 200,
  });
  // Piped input may end (and close readline) while a turn still runs; Node 22+ throws on a
  // prompt after close, so readline prompts only while open. Without line editing the prompt
  // is written directly and each line read is echoed after it (nothing else echoes it), so a
  // piped session reads as a transcript however fast its lines arrive.
  let inputClosed = false;
  rl.on('close', () => {
    inputClosed = true;
  });
  let promptShown = false;
  const prompt = () => {
    if (lineEditing) {
      if (!inputClosed) rl.prompt();
      return;
    }
    terminal.out.write(promptText);
    promptShown = true;
  };
  const say = (text: string) => {
    if (promptShown) terminal.out.write('\n');
    promptShown = false;
    terminal.out.write(`${text}\n`);
  };
  const echoRead = (line: string) => {
    if (lineEditing) return;
    terminal.out.write(`${line}\n`);
    promptShown = false;
  };

  const nextLine = sharedLineReader(rl);
  const askInline = (signal: AbortSignal, beforeAsking: () => void): Ask =>
    inlineAsk(terminal, lineEditing, nextLine, signal, beforeAsking);
  return { rl, lineEditing, prompt, say, nextLine, echoRead, askInline };
}

/**
 * One reader of the input for the prompt and for the questions of a paused run: a line read
 * while a question was cancelled (Ctrl-C) goes to the next reader, never lost.
 */
function sharedLineReader(rl: readline.Interface): () => Promise<IteratorResult<string>> {
  const lines = rl[Symbol.asyncIterator]();
  let waitingLine: Promise<IteratorResult<string>> | undefined;
  return () => {
    waitingLine ??= lines.next().finally(() => {
      waitingLine = undefined;
    });
    return waitingLine;
  };
}

/** Asks inline, at the chat's own prompt; the abort of `signal` or the end of input: `undefined`. */
function inlineAsk(
  terminal: Terminal,
  lineEditing: boolean,
  nextLine: () => Promise<IteratorResult<string>>,
  signal: AbortSignal,
  beforeAsking: () => void,
): Ask {
  return async (question) => {
    beforeAsking();
    terminal.out.write(question);
    const aborted = new Promise<undefined>((resolve) => {
      if (signal.aborted) resolve(undefined);
      signal.addEventListener('abort', () => resolve(undefined), { once: true });
    });
    const next = await Promise.race([nextLine(), aborted]);
    if (next === undefined || next.done === true) {
      terminal.out.write('\n');
      return undefined;
    }
    if (!lineEditing) terminal.out.write(`${next.value}\n`);
    return next.value;
  };
}
