import readline from 'node:readline';
import type { Interruption, ResumeDecision } from '@agcore/llm-cycle';
import type { Colors } from './output.js';
import { ExitCode, PlaygroundError } from './playground-error.js';

/** Decisions given on the command line, for runs that are not on a terminal (or `--json`). */
export interface DecisionFlags {
  /** `--approve yes|no`: the decision on every call that waits for approval. */
  readonly approve?: 'yes' | 'no';
  /** `--answer TEXT`: the answer to every tool that asks back. */
  readonly answer?: string;
}

/** Asks a person a question and resolves to the line typed, or `undefined` (Ctrl-C, end of input). */
export type Ask = (question: string) => Promise<string | undefined>;

/** One decision, as the playground prints and records it. */
export interface Decided {
  readonly interruption: Interruption;
  readonly decision: ResumeDecision;
}

/**
 * The decision on each waiting call: asked of the person (`ask`) unless a flag gives it.
 * @throws {PlaygroundError} (exit 2) when a call needs a decision no flag gives and nobody can
 * be asked (not a terminal, or `--json`); (exit 130) when the person pressed Ctrl-C
 */
export async function decide(
  interruptions: readonly Interruption[],
  flags: DecisionFlags,
  ask: Ask | undefined,
  colors: Colors,
): Promise<Decided[]> {
  const decided: Decided[] = [];
  for (const interruption of interruptions) {
    decided.push({ interruption, decision: await decideOne(interruption, flags, ask, colors) });
  }
  return decided;
}

async function decideOne(
  interruption: Interruption,
  flags: DecisionFlags,
  ask: Ask | undefined,
  colors: Colors,
): Promise<ResumeDecision> {
  const { toolName, input } = interruption;
  if (interruption.kind === 'approval') {
    if (flags.approve !== undefined) {
      return flags.approve === 'yes' ? 'approve' : { deny: 'Denied with --approve no.' };
    }
    if (ask === undefined) throw undecided('waits for approval', '--approve yes|no');
    const reply = await ask(
      `${colors.yellow('?')} approve ${colors.bold(toolName)} ${JSON.stringify(input)}? ${colors.dim('[y/N]')} `,
    );
    if (reply === undefined) throw interrupted();
    return /^\s*y(es)?\s*$/i.test(reply)
      ? 'approve'
      : { deny: 'The person at the terminal said no.' };
  }
  if (flags.answer !== undefined) return { input: flags.answer };
  if (ask === undefined) throw undecided('asks a question', '--answer TEXT');
  const reply = await ask(
    `${colors.yellow('?')} ${colors.bold(toolName)} asks: ${interruption.prompt ?? ''} ${colors.dim('›')} `,
  );
  if (reply === undefined) throw interrupted();
  return { input: reply.trim() };
}

/** How a decision reads in the timeline. Never throws. */
export function describeDecision({ interruption, decision }: Decided, colors: Colors): string {
  const call = `${colors.bold(interruption.toolName)} ${colors.dim(interruption.callId)}`;
  if (decision === 'approve') return `  ${colors.green('✔ approved')} ${call}`;
  if ('deny' in decision) return `  ${colors.red('✗ denied')} ${call}: ${decision.deny}`;
  return `  ${colors.cyan('↩ answered')} ${call}: ${JSON.stringify(decision.input)}`;
}

/** The decisions keyed by call id, as `resume` takes them. */
export function decisionMap(decided: readonly Decided[]): Record<string, ResumeDecision> {
  return Object.fromEntries(decided.map((item) => [item.interruption.callId, item.decision]));
}

/**
 * Asks on the terminal (stdin and stdout both TTYs), one line per question; Ctrl-C or the end
 * of input resolve to `undefined`. Lines typed ahead (before their question) are kept for the
 * next questions, in order. Call `close` when done.
 */
export function terminalAsk(): { ask: Ask; close: () => void } {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  const typedAhead: string[] = [];
  let ended = false;
  let waiting: ((line: string | undefined) => void) | undefined;
  const deliver = (line: string | undefined): boolean => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.(line);
    return resolve !== undefined;
  };
  rl.on('line', (line) => {
    if (!deliver(line)) typedAhead.push(line);
  });
  rl.on('SIGINT', () => {
    ended = true;
    deliver(undefined);
  });
  rl.on('close', () => {
    ended = true;
    deliver(undefined);
  });
  return {
    ask: (question) =>
      new Promise((resolve) => {
        rl.setPrompt(question);
        rl.prompt();
        const line = typedAhead.shift();
        if (line !== undefined || ended) {
          if (line !== undefined) process.stdout.write(`${line}\n`);
          resolve(line);
          return;
        }
        waiting = resolve;
      }),
    close: () => rl.close(),
  };
}

function undecided(what: string, flag: string): PlaygroundError {
  return new PlaygroundError(
    `A tool call ${what}, and nobody can be asked (stdin is not a terminal, or --json): pass ${flag}.`,
  );
}

function interrupted(): PlaygroundError {
  return new PlaygroundError('No decision: interrupted at the question.', {
    exitCode: ExitCode.interrupted,
  });
}
