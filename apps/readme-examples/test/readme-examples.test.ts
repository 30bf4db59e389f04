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
        files: checked.map((file) => path.basename(file)),
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
    it(title, () => {
      const file = files[index] as string;
      const result = spawnSync(process.execPath, ['--import', 'tsx', file], {
        encoding: 'utf8',
        cwd: runDir,
        timeout: 90_000,
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
        throw new Error(
          `${title}: exit ${result.status ?? result.signal}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`,
        );
      }
    });
  }
});
