import type { TruncatedText } from '@agcore/tools-core';
import { cutHeadTail, type ResultCut } from './head-tail.js';
import type { ResultStore } from './result-store.js';

/** Spilling, resolved: where whole results go and how much one `read_result` returns. */
export interface ResolvedSpill {
  readonly store: ResultStore;
  /** The most bytes one `read_result` call returns (fits in a tool message uncut). */
  readonly readBytes: number;
}

/** The handle of a call's spilled result: unique per run and call. */
export function spillHandle(runId: string, callId: string): string {
  return `${runId.slice(0, 8)}_${callId}`;
}

/**
 * `content` cut head + tail; when it is too long, kept whole in the store first, and the marker
 * carries the handle. A store that throws or rejects costs only the handle. Never rejects.
 */
export async function spillOrCut(
  content: string,
  cut: ResultCut,
  spill: ResolvedSpill,
  handle: string,
  runId: string,
): Promise<TruncatedText> {
  const plain = cutHeadTail(content, cut);
  if (!plain.truncated) return plain;
  try {
    await spill.store.put(handle, content, runId);
  } catch {
    return plain; // Nothing kept under the handle: the model must not be told it is.
  }
  return cutHeadTail(content, cut, handle);
}
