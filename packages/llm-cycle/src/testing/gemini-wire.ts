/**
 * Gemini API bytes for tests (ai.google.dev/api/generate-content): `GenerateContentResponse`
 * objects, whole (`geminiBody`) and as the SSE chunks of `:streamGenerateContent?alt=sse`
 * (`geminiStream`), errors as the API sends them (`geminiError`, with a `google.rpc.RetryInfo`
 * for a 429), and the thought signatures `startGeminiServer` checks come back.
 */
import { sseEvent, type WireObject } from './wire-format.js';

/** Token counts of `usageMetadata`. */
export interface GeminiUsage {
  readonly promptTokenCount: number;
  readonly candidatesTokenCount: number;
  readonly thoughtsTokenCount?: number;
  readonly cachedContentTokenCount?: number;
}

/** A function call the model makes (`id`: as Gemini 3 sends it; leave it out as 2.5 may). */
export interface GeminiCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  readonly id?: string;
}

/** What one answer of the model says. */
export interface GeminiReply {
  /** A thought summary (`thought: true` part), before the rest. */
  readonly thought?: string;
  readonly text?: string;
  /** Parallel calls, in one turn; the first carries the turn's `thoughtSignature`. */
  readonly calls?: readonly GeminiCall[];
  /** Default `STOP`. */
  readonly finishReason?: string;
  /** Default 12 prompt, 5 candidates tokens. */
  readonly usage?: GeminiUsage;
  /** `modelVersion` (default `gemini-test`). */
  readonly model?: string;
}

/** The thought signature the test server gives a call (and expects back): opaque, deterministic. */
export function geminiSignature(call: GeminiCall): string {
  const seed = `${call.name}:${JSON.stringify(call.args)}`;
  let hash = 0x811c9dc5;
  for (let index = 0; index < seed.length; index++) {
    hash ^= seed.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `CiQB0e2Kb${hash.toString(36)}`;
}

/** `usageMetadata` of `usage` (its total: prompt + candidates + thoughts). */
export function geminiUsage(usage: GeminiUsage): WireObject {
  return {
    ...usage,
    totalTokenCount:
      usage.promptTokenCount + usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0),
  };
}

function callPart(call: GeminiCall, index: number): WireObject {
  return {
    functionCall: {
      ...(call.id === undefined ? {} : { id: call.id }),
      name: call.name,
      args: call.args,
    },
    ...(index === 0 ? { thoughtSignature: geminiSignature(call) } : {}),
  };
}

/** The parts of `reply`, in order: thought, text, calls. */
export function geminiParts(reply: GeminiReply): WireObject[] {
  const parts: WireObject[] = [];
  if (reply.thought !== undefined) parts.push({ text: reply.thought, thought: true });
  if (reply.text !== undefined) parts.push({ text: reply.text });
  (reply.calls ?? []).forEach((call, index) => {
    parts.push(callPart(call, index));
  });
  return parts;
}

let responses = 0;

function envelope(parts: WireObject[], reply: GeminiReply, last: boolean, id: string): WireObject {
  return {
    candidates: [
      {
        content: { role: 'model', parts },
        ...(last ? { finishReason: reply.finishReason ?? 'STOP', index: 0 } : {}),
      },
    ],
    usageMetadata: geminiUsage(reply.usage ?? { promptTokenCount: 12, candidatesTokenCount: 5 }),
    modelVersion: reply.model ?? 'gemini-test',
    responseId: id,
  };
}

/** A whole `GenerateContentResponse` of `reply`. */
export function geminiBody(reply: GeminiReply): WireObject {
  return envelope(geminiParts(reply), reply, true, `resp-${++responses}`);
}

/**
 * The SSE chunks of `reply`: the thought, the text in `pieces` (default: whole), the calls
 * together, then an empty last chunk with `finishReason` (each chunk with the usage so far).
 */
export function geminiStream(reply: GeminiReply, pieces?: readonly string[]): string[] {
  const id = `resp-${++responses}`;
  const events: string[] = [];
  if (reply.thought !== undefined)
    events.push(sseEvent(envelope([{ text: reply.thought, thought: true }], reply, false, id)));
  for (const text of pieces ?? (reply.text === undefined ? [] : [reply.text]))
    events.push(sseEvent(envelope([{ text }], reply, false, id)));
  const calls = (reply.calls ?? []).map(callPart);
  events.push(sseEvent(envelope(calls.length > 0 ? calls : [{ text: '' }], reply, true, id)));
  return events;
}

/** An error body as the API sends it: `{ error: { code, message, status, details? } }`. */
export function geminiError(
  code: number,
  status: string,
  message: string,
  details?: readonly WireObject[],
): WireObject {
  return { error: { code, message, status, ...(details === undefined ? {} : { details }) } };
}

/** The 429 body of a quota hit, with its `google.rpc.RetryInfo` (`retryDelay`, e.g. `"2s"`). */
export function geminiRateLimit(retryDelay: string): WireObject {
  return geminiError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota.', [
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay },
  ]);
}

/** An error in a stream, as one SSE chunk. */
export function geminiErrorEvent(message: string): string {
  return sseEvent(geminiError(500, 'INTERNAL', message));
}
