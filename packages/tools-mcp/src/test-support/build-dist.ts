// vitest globalSetup: the tests that run the package as a user gets it (the CLI, the
// conformance client, import tracing) use dist/, built here once from the current source
// with the package's own build script.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Runs `pnpm run build` in the package; throws with its output when it fails. */
export async function setup(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    execFile(
      'pnpm',
      ['run', '--loglevel', 'silent', 'build'],
      { cwd: packageRoot },
      (error, stdout, stderr) => {
        if (error === null) resolve();
        else reject(new Error(`building dist/ for the tests failed:\n${stdout}${stderr}`));
      },
    );
  });
}
