// vitest globalSetup: the tests that run the package as a user gets it (the CLI, the
// conformance client, import tracing) use a bundle of the current source, built here once
// with the package's own bundler script into a directory of the tests' own (`testDist`):
// rebuilding dist/ in place would pull it from under other packages' tests running alongside.
import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { packageRoot, testDist } from './test-dist.js';

/** Builds `testDist`; throws with the bundler's output when it fails. */
export async function setup(): Promise<void> {
  await rm(testDist, { recursive: true, force: true });
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      ['scripts/bundle.mjs', testDist],
      { cwd: packageRoot },
      (error, stdout, stderr) => {
        if (error === null) resolve();
        else reject(new Error(`bundling the package for the tests failed:\n${stdout}${stderr}`));
      },
    );
  });
}
