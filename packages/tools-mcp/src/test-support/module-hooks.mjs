// Module resolution hooks for tests (see trace-modules.mjs).
import { appendFileSync } from 'node:fs';

const hidden = new Set((process.env.HIDE_MODULES ?? '').split(',').filter((name) => name !== ''));
const traceFile = process.env.TRACE_FILE;

export async function resolve(specifier, context, nextResolve) {
  const bare = specifier.startsWith('@')
    ? specifier.split('/').slice(0, 2).join('/')
    : specifier.split('/')[0];
  if (hidden.has(bare)) {
    const error = new Error(`Cannot find package '${bare}' imported from ${context.parentURL}`);
    error.code = 'ERR_MODULE_NOT_FOUND';
    throw error;
  }
  const resolved = await nextResolve(specifier, context);
  if (traceFile) appendFileSync(traceFile, `${resolved.url}\n`);
  return resolved;
}
