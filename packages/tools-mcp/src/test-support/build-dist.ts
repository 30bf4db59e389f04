// vitest globalSetup: the tests that run the package as a user gets it (the CLI, the
// conformance client, import tracing) use dist/, built here once from the current source.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Builds dist/ with the package's own tsc; throws with the compiler output when it fails. */
export async function setup(): Promise<void> {
  const tsc = join(packageRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      [tsc, '-p', join(packageRoot, 'tsconfig.build.json')],
      { cwd: packageRoot },
      (error, stdout, stderr) => {
        if (error === null) resolve();
        else reject(new Error(`building dist/ for the tests failed:\n${stdout}${stderr}`));
      },
    );
  });
}
