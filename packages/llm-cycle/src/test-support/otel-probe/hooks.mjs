// Module resolution hooks for the "nothing is loaded" tests: every resolution of an
// @opentelemetry package is logged (specifier and importer), and with `deny` set those asked
// for by agcore's own files fail as if the package were not installed.
import { appendFileSync } from 'node:fs';

let settings = { log: undefined, deny: 'none' };

export function initialize(data) {
  settings = data;
}

export async function resolve(specifier, context, next) {
  if (specifier.startsWith('@opentelemetry/')) {
    const from = context.parentURL ?? '';
    // agcore's own code, not the test's (the application registering the SDK).
    const byAgcore =
      /\/packages\/(llm-cycle|tools-registry|tools-core|tools-mcp)\//.test(from) &&
      !from.includes('/test-support/');
    appendFileSync(settings.log, `${JSON.stringify({ specifier, byAgcore })}\n`);
    if (settings.deny === 'all' || (settings.deny === 'agcore' && byAgcore)) {
      const error = new Error(`Cannot find package '${specifier}' imported from ${from}`);
      error.code = 'ERR_MODULE_NOT_FOUND';
      throw error;
    }
  }
  return next(specifier, context);
}
