import type { ChatMessage } from '@agcore/llm-cycle';
import Table from 'cli-table3';
import { type Colors, cut, displayWidth, formatDuration } from '../core/output.js';
import type { RunStats } from '../core/run-stats.js';

/** The summary of a run as plain data (the `--json` `run_finished` record carries it). */
export interface RunSummary {
  readonly turns: number;
  readonly toolCalls: number;
  readonly failures: number;
  readonly truncated: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** `reported` by the model, `estimated` for the scripted model, `none` when unknown. */
  readonly tokens: 'reported' | 'estimated' | 'none';
  readonly wallTimeMs: number;
}

/** Freezes the counters into a summary. Never throws. */
export function summarize(stats: RunStats, estimated: boolean): RunSummary {
  return {
    turns: stats.turns,
    toolCalls: stats.toolCalls,
    failures: stats.failures,
    truncated: stats.truncated,
    promptTokens: stats.promptTokens,
    completionTokens: stats.completionTokens,
    tokens: stats.usageReported ? (estimated ? 'estimated' : 'reported') : 'none',
    wallTimeMs: Math.round(performance.now() - stats.startedAt),
  };
}

/**
 * The summary table (cli-table3), at most `columns` wide: every value on one line (the value
 * column is as wide as the widest, `3 min 58 s` included); the notes wrap. Never throws.
 */
export function renderSummary(summary: RunSummary, colors: Colors, columns = 80): string {
  const tokens =
    summary.tokens === 'none'
      ? ['—', colors.dim('the model reported no usage')]
      : [
          String(summary.promptTokens + summary.completionTokens),
          colors.dim(
            `${summary.promptTokens} prompt + ${summary.completionTokens} completion${summary.tokens === 'estimated' ? ' (estimated: the scripted model reports none)' : ''}`,
          ),
        ];
  const rows = [
    [colors.bold('turns'), String(summary.turns), ''],
    [
      colors.bold('tool calls'),
      String(summary.toolCalls),
      summary.truncated > 0 ? colors.dim(`${summary.truncated} result(s) cut for the model`) : '',
    ],
    [
      colors.bold('failures'),
      summary.failures > 0 ? colors.red(String(summary.failures)) : String(summary.failures),
      colors.dim('tool calls that ended in an error'),
    ],
    [colors.bold('tokens'), tokens[0] ?? '', tokens[1] ?? ''],
    [colors.bold('wall time'), formatDuration(summary.wallTimeMs), ''],
  ];
  // Borders take 4 columns, the label column 12, the value column its widest value and padding.
  const valueWidth = Math.max(7, ...rows.map((row) => displayWidth(row[1] ?? ''))) + 2;
  const table = new Table({
    style: { head: [], border: [], compact: true },
    colAligns: ['left', 'right', 'left'],
    colWidths: [12, valueWidth, Math.max(16, columns - 4 - 12 - valueWidth)],
    wordWrap: true,
  });
  table.push(...rows);
  return table.toString();
}

/**
 * The conversation part of `cycle.messages()`: everything after the system prompt, which the
 * playground's own prompt fills and would only repeat on every run. Never throws.
 */
export function conversationOf(messages: readonly ChatMessage[]): ChatMessage[] {
  return messages.filter((message) => message.role !== 'system');
}

/** The history, one message per line (long contents cut). Never throws. */
export function renderHistory(
  messages: readonly ChatMessage[],
  colors: Colors,
  width: number,
): string {
  const lines = messages.map((message, index) => {
    const number = colors.dim(String(index + 1).padStart(2));
    switch (message.role) {
      case 'system':
        return `${number} ${colors.dim('system')}    ${cut(message.content, width)}`;
      case 'user': {
        const content =
          typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
        return `${number} ${colors.cyan('user')}      ${cut(content, width)}`;
      }
      case 'assistant': {
        const calls = (message.tool_calls ?? []).map(
          (call) => `${call.function.name}(${call.function.arguments}) ${colors.dim(call.id)}`,
        );
        const parts = [message.content ?? '', ...calls.map((call) => `→ ${call}`)].filter(
          (part) => part !== '',
        );
        return `${number} ${colors.magenta('assistant')} ${cut(parts.join('  '), width)}`;
      }
      case 'tool':
        return `${number} ${colors.yellow('tool')}      ${colors.dim(message.tool_call_id)} ${cut(message.content, width)}`;
    }
    return '';
  });
  return lines.join('\n');
}
