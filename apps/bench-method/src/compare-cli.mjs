#!/usr/bin/env node
// The command behind `pnpm bench:compare <ref>` (see compare.mjs and docs/benchmarks.md).
import { CompareError, compare } from './compare.mjs';

try {
  process.exitCode = compare(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof CompareError)) throw error;
  process.stderr.write(`bench:compare: ${error.message}\n`);
  process.exitCode = error.code;
}
