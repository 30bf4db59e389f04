import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { type AnyTool, defineTool, type JsonObject, ToolError } from '@agcore/tools-core';
import { createDeleteFileTool, transferMoneyTool } from './approval-tools.js';
import { evaluateExpression } from './expression.js';
import { sandboxPath } from './sandbox.js';

/** Where the built-in tools live and what they may touch. */
export interface BuiltinToolOptions {
  /** The only directory `read_file` may read (a temp dir the playground made). */
  readonly sandboxDir: string;
}

interface CityWeather {
  readonly temperature: number;
  readonly condition: string;
  readonly humidity: number;
}

const weatherByCity: Readonly<Record<string, CityWeather>> = {
  beijing: { temperature: 22, condition: 'sunny', humidity: 31 },
  shanghai: { temperature: 26, condition: 'cloudy', humidity: 68 },
  london: { temperature: 14, condition: 'light rain', humidity: 82 },
  paris: { temperature: 18, condition: 'partly cloudy', humidity: 60 },
  tokyo: { temperature: 24, condition: 'clear', humidity: 55 },
  'new york': { temperature: 20, condition: 'windy', humidity: 47 },
};

const chineseCityNames: Readonly<Record<string, string>> = {
  北京: 'beijing',
  上海: 'shanghai',
  伦敦: 'london',
  巴黎: 'paris',
  东京: 'tokyo',
  纽约: 'new york',
};

/**
 * The design's `get_weather`: the current weather of a city. Offline by design (the
 * playground needs no network), so it answers from a small table and says when it does not
 * know a city; unknown cities are an `execution_failed` the model can recover from.
 */
export const getWeatherTool = defineTool({
  name: 'get_weather',
  description:
    'Get the current weather for a city. Known cities: Beijing, Shanghai, London, Paris, Tokyo, New York.',
  parameters: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name, e.g. "Beijing"' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'Default celsius' },
    },
    required: ['city'],
    additionalProperties: false,
  },
  requiredPermissions: ['read'],
  execute: async ({ city, unit }) => {
    const key = chineseCityNames[city.trim()] ?? city.trim().toLowerCase();
    const weather = weatherByCity[key];
    if (weather === undefined) {
      throw new ToolError(
        'execution_failed',
        `No weather data for '${city}'. Known cities: Beijing, Shanghai, London, Paris, Tokyo, New York.`,
        { toolName: 'get_weather' },
      );
    }
    const fahrenheit = unit === 'fahrenheit';
    return {
      city,
      temperature: fahrenheit
        ? Math.round((weather.temperature * 9) / 5 + 32)
        : weather.temperature,
      unit: fahrenheit ? '°F' : '°C',
      condition: weather.condition,
      humidity: weather.humidity,
    };
  },
});

/** A calculator for arithmetic expressions (+ - * / % ^, parentheses, sqrt, abs, round...). */
export const calculatorTool = defineTool({
  name: 'calculator',
  description:
    'Evaluate an arithmetic expression. Supports + - * / % ^, parentheses, pi, e and the functions sqrt, abs, round, floor, ceil, min, max, pow.',
  parameters: {
    type: 'object',
    properties: {
      expression: { type: 'string', description: 'For example "(22 + 14) / 2"' },
    },
    required: ['expression'],
    additionalProperties: false,
  },
  execute: async ({ expression }) => {
    try {
      return { expression, result: evaluateExpression(expression) };
    } catch (error) {
      throw new ToolError(
        'execution_failed',
        `Cannot evaluate '${expression}': ${error instanceof Error ? error.message : String(error)}`,
        { toolName: 'calculator', cause: error },
      );
    }
  },
});

/** Largest file `read_file` reads; bigger ones are refused rather than loaded. */
const maxReadBytes = 1024 * 1024;

/**
 * Makes `read_file`, which reads a UTF-8 text file inside `sandboxDir` only: paths that leave
 * it (`..`, absolute paths elsewhere, symlinks pointing out) are refused with a recoverable
 * `execution_failed`.
 */
export function createReadFileTool(sandboxDir: string): AnyTool {
  return defineTool({
    name: 'read_file',
    description: `Read a text file from the playground's sandbox directory. Paths are relative to that directory; nothing outside it can be read.`,
    parameters: {
      type: 'object',
      properties: {
        path: {
          type: 'string',
          description: 'File path relative to the sandbox, e.g. "notes.txt"',
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
    requiredPermissions: ['read'],
    execute: async ({ path: requested }) => {
      const resolved = await sandboxPath(sandboxDir, requested, 'read_file', 'reads');
      const info = await stat(resolved);
      if (!info.isFile()) {
        throw new ToolError('execution_failed', `'${requested}' is not a file.`, {
          toolName: 'read_file',
        });
      }
      if (info.size > maxReadBytes) {
        throw new ToolError(
          'execution_failed',
          `'${requested}' is ${info.size} bytes; read_file reads files up to ${maxReadBytes} bytes.`,
          { toolName: 'read_file' },
        );
      }
      const content = await readFile(resolved, 'utf8');
      return { path: requested, bytes: info.size, content };
    },
  });
}

/**
 * `run_shell`: runs a command with `/bin/sh -c` in the sandbox. It needs the `shell`
 * permission, which the default policy denies; it really runs when you pass `--allow shell`.
 */
export function createRunShellTool(sandboxDir: string): AnyTool {
  return defineTool({
    name: 'run_shell',
    description: 'Run a shell command in the sandbox directory and return its output.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'string', description: 'The command line to run' } },
      required: ['command'],
      additionalProperties: false,
    },
    requiredPermissions: ['shell'],
    execute: (args, context) =>
      new Promise<JsonObject>((resolve, reject) => {
        execFile(
          '/bin/sh',
          ['-c', args.command],
          { cwd: sandboxDir, signal: context.signal, timeout: 30_000, maxBuffer: 1024 * 1024 },
          (error, stdout, stderr) => {
            if (error !== null && typeof error.code !== 'number') {
              reject(
                new ToolError('execution_failed', `run_shell failed: ${error.message}`, {
                  toolName: 'run_shell',
                  cause: error,
                }),
              );
              return;
            }
            resolve({ exitCode: error === null ? 0 : Number(error.code), stdout, stderr });
          },
        );
      }),
  });
}

/**
 * `slow_task`: works for `seconds`, reporting progress ten times a second, and stops as soon
 * as its signal aborts (a timeout or Ctrl-C). The `timeout` flow uses it.
 */
export const slowTaskTool = defineTool({
  name: 'slow_task',
  description: 'A task that takes the given number of seconds and reports its progress.',
  parameters: {
    type: 'object',
    properties: {
      seconds: { type: 'number', minimum: 0, maximum: 600, description: 'How long the task takes' },
    },
    required: ['seconds'],
    additionalProperties: false,
  },
  execute: (args, context) =>
    new Promise<JsonObject>((resolve, reject) => {
      const totalMs = Math.round(args.seconds * 1000);
      const started = Date.now();
      const tick = () => {
        const elapsed = Math.min(Date.now() - started, totalMs);
        context.progress?.({
          progress: Math.round(elapsed / 100) / 10,
          total: args.seconds,
          message: 'working',
        });
        if (elapsed >= totalMs) {
          cleanup();
          resolve({ done: true, seconds: args.seconds });
        }
      };
      const timer = setInterval(tick, 100);
      const onAbort = () => {
        cleanup();
        reject(
          new ToolError('cancelled', 'slow_task stopped: its call was aborted.', {
            toolName: 'slow_task',
            cause: context.signal.reason,
          }),
        );
      };
      const cleanup = () => {
        clearInterval(timer);
        context.signal.removeEventListener('abort', onAbort);
      };
      if (context.signal.aborted) {
        onAbort();
        return;
      }
      context.signal.addEventListener('abort', onAbort, { once: true });
      if (totalMs === 0) tick();
    }),
});

/** The built-in example tools, in the order `tools` lists them. */
export function createBuiltinTools(options: BuiltinToolOptions): AnyTool[] {
  return [
    getWeatherTool as AnyTool,
    calculatorTool as AnyTool,
    createReadFileTool(options.sandboxDir),
    createRunShellTool(options.sandboxDir),
    slowTaskTool as AnyTool,
    createDeleteFileTool(options.sandboxDir),
    transferMoneyTool as AnyTool,
  ];
}
