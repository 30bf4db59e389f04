/**
 * Every TypeScript and JavaScript example of every README runs as written, offline: each is
 * written to a module of its own under `.run/` (inside this workspace, so `@agcore/*` resolves
 * as it would for a user), type-checked, then run with tsx in a fresh process that must exit 0.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type Example, extractExamples, extractFiles, readmes } from './extract.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const workspace = path.resolve(here, '..');
const root = path.resolve(workspace, '../..');
const runDir = path.join(workspace, '.run');
const bin = (name: string): string => path.join(workspace, 'node_modules', '.bin', name);

const examples = readmes(root).flatMap((readme) => extractExamples(root, readme));

function fileOf(example: Example, index: number): string {
  const slug = example.readme.replace(/\/README\.md$|README\.md$/, '').replace(/[^\w]+/g, '-');
  return path.join(
    runDir,
    `${slug || 'root'}-${index}-line${example.line}.${example.language === 'ts' ? 'mts' : 'mjs'}`,
  );
}

rmSync(runDir, { recursive: true, force: true });
mkdirSync(runDir, { recursive: true });
// The files the READMEs show whole (an `mcp.json`), where the examples look for them.
for (const file of readmes(root).flatMap((readme) => extractFiles(root, readme)))
  writeFileSync(path.join(runDir, file.name), file.text);
const files = examples.map((example, index) => {
  const file = fileOf(example, index);
  // A module of its own: top-level await works, names never clash between examples.
  writeFileSync(file, `${example.code}\nexport {};\n`);
  return file;
});
// The first block of an example that other blocks continue, as a module of its own.
const firstBlocks = examples.map((example, index) => {
  if (example.firstBlock === undefined) return undefined;
  const file = fileOf(example, index).replace(/\.(mts|mjs)$/, '-alone.$1');
  writeFileSync(file, `${example.firstBlock}\nexport {};\n`);
  return file;
});

/** Runs a module as a user would (tsx, offline, keyless); throws with its output unless it exits 0. */
function run(file: string, title: string, timeout: number): void {
  const result = spawnSync(process.execPath, ['--import', 'tsx', file], {
    encoding: 'utf8',
    cwd: runDir,
    timeout,
    // Offline and keyless, as on a fresh machine: no endpoint from the environment.
    env: {
      ...process.env,
      OPENAI_BASE_URL: '',
      OPENAI_API_KEY: '',
      AGCORE_MODEL: '',
      NO_COLOR: '1',
    },
  });
  if (result.status !== 0) {
    const how =
      result.signal === 'SIGTERM'
        ? `still running after ${timeout} ms`
        : `exit ${result.status ?? result.signal}`;
    throw new Error(`${title}: ${how}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  }
}

describe('README examples', () => {
  it('finds the examples, and every one kept out says why', () => {
    expect(examples.length).toBeGreaterThan(5);
    for (const example of examples.filter((item) => item.notRun !== undefined))
      expect(example.notRun?.length ?? 0).toBeGreaterThan(10);
  });

  it('type-check (strict, as the packages themselves)', () => {
    const checked = files.filter((_, index) => {
      const example = examples[index];
      return example?.language === 'ts' && example.notRun === undefined;
    });
    const alone = firstBlocks.filter((file, index) => {
      const example = examples[index];
      return file !== undefined && example?.language === 'ts' && example.notRun === undefined;
    }) as string[];
    const tsconfig = path.join(runDir, 'tsconfig.json');
    writeFileSync(
      tsconfig,
      JSON.stringify({
        extends: '../../../tsconfig.base.json',
        compilerOptions: {
          noEmit: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
        },
        files: [...checked, ...alone].map((file) => path.basename(file)),
      }),
    );
    const result = spawnSync(bin('tsc'), ['-p', tsconfig], { encoding: 'utf8', cwd: runDir });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  for (const [index, example] of examples.entries()) {
    const title = `${example.readme}:${example.line} runs`;
    if (example.notRun !== undefined) {
      it.skip(`${title} (not run: ${example.notRun})`, () => {});
      continue;
    }
    it(title, () => run(files[index] as string, title, 90_000));
    const alone = firstBlocks[index];
    if (alone !== undefined) {
      // Its first block copied alone must end too (not wait on a server the next block closes).
      const aloneTitle = `${example.readme}:${example.line} runs alone, without the blocks that continue it`;
      it(aloneTitle, () => run(alone, aloneTitle, 30_000));
    }
  }
});
