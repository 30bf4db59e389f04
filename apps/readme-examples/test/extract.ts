import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One runnable example: the code of one fenced block (and the blocks that continue it). */
export interface Example {
  /** The README, relative to the repository root. */
  readonly readme: string;
  /** The line of the opening fence of the first block. */
  readonly line: number;
  /** `ts` or `js`. */
  readonly language: 'ts' | 'js';
  /** The code, continuation blocks appended. */
  readonly code: string;
  /**
   * The first block alone, when blocks continue it: what a reader copies from the top of the
   * README, which must run to its end by itself too.
   */
  readonly firstBlock?: string;
  /** Why the example is not run, when its README says so (`<!-- not run: reason -->`). */
  readonly notRun?: string;
}

/** A file a README shows whole (`<!-- file: name -->` before its block), which its examples read. */
export interface ExampleFile {
  /** The README, relative to the repository root. */
  readonly readme: string;
  /** The file's name, relative to the directory the examples run in. */
  readonly name: string;
  /** The block's text. */
  readonly text: string;
}

const fence = /^```(ts|typescript|js|javascript|mjs)\s*$/;
const continues = /^<!--\s*continues\s*-->$/;
const notRun = /^<!--\s*not run:\s*(.+?)\s*-->$/;
const fileMarker = /^<!--\s*file:\s*([\w.-]+)\s*-->$/;
const anyFence = /^```\w*\s*$/;

/** The files of one README: each block right after `<!-- file: name -->`, whatever its language. */
export function extractFiles(root: string, readme: string): ExampleFile[] {
  const lines = readFileSync(path.join(root, readme), 'utf8').split('\n');
  const files: ExampleFile[] = [];
  for (let index = 0; index < lines.length; index++) {
    const name = fileMarker.exec((lines[index] ?? '').trim())?.[1];
    if (name === undefined || !anyFence.test((lines[index + 1] ?? '').trim())) continue;
    const body: string[] = [];
    for (index += 2; index < lines.length && (lines[index] ?? '').trim() !== '```'; index++)
      body.push(lines[index] ?? '');
    files.push({ readme, name, text: `${body.join('\n')}\n` });
  }
  return files;
}

/**
 * The examples of one README. A fenced `ts`/`js` block is one example, run as a module of its
 * own; a block right after `<!-- continues -->` is appended to the example before it (so a README
 * can explain a program in steps); `<!-- not run: reason -->` before a block keeps it out (a
 * fragment such as a type signature), with the reason shown.
 */
export function extractExamples(root: string, readme: string): Example[] {
  const lines = readFileSync(path.join(root, readme), 'utf8').split('\n');
  const examples: Example[] = [];
  let marker: string | undefined;
  for (let index = 0; index < lines.length; index++) {
    const text = (lines[index] ?? '').trim();
    if (continues.test(text) || notRun.test(text)) {
      marker = text;
      continue;
    }
    const open = fence.exec(text);
    if (open === null) {
      if (text !== '') marker = undefined;
      continue;
    }
    const body: string[] = [];
    const line = index + 1;
    for (index++; index < lines.length && (lines[index] ?? '').trim() !== '```'; index++)
      body.push(lines[index] ?? '');
    const language = open[1]?.startsWith('t') === true ? 'ts' : 'js';
    const code = body.join('\n');
    const previous = examples.at(-1);
    if (marker !== undefined && continues.test(marker) && previous !== undefined) {
      examples[examples.length - 1] = {
        ...previous,
        code: `${previous.code}\n\n${code}`,
        firstBlock: previous.firstBlock ?? previous.code,
      };
    } else {
      const reason = marker === undefined ? undefined : notRun.exec(marker)?.[1];
      examples.push({
        readme,
        line,
        language,
        code,
        ...(reason === undefined ? {} : { notRun: reason }),
      });
    }
    marker = undefined;
  }
  return examples;
}

/** The READMEs of the repository: the root one, then every package's and app's. */
export function readmes(root: string): string[] {
  const found = ['README.md'];
  for (const group of ['packages', 'apps']) {
    const dir = path.join(root, group);
    for (const name of readdirSync(dir).sort()) {
      const readme = path.join(group, name, 'README.md');
      if (existsSync(path.join(root, readme))) found.push(readme);
    }
  }
  return found;
}
