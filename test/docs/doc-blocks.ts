/**
 * The fenced code blocks of the documentation, with the `<!-- doc-test: … -->` marker that may
 * precede each. Shared by test/docs/code-blocks.test.ts (which runs them) and
 * scripts/doc-install-blocks.ts (which runs the install blocks in `npm run check:package`).
 * The conventions are described in docs/testing.md ("Code blocks in the documentation").
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** What a marker may say. Anything else is a typo, and the docs test fails on it. */
export const DIRECTIVES = [
  /** Not run; the marker must give the reason after ` — `. */
  'skip',
  /** Installs the package: run by `npm run check:package` in a scratch project, not by the docs test. */
  'install',
  /** A fragment: runs after the previous block of the same language in the same file, as one program. */
  'continues',
  /** Needs the demo organization served on port 9991 (`chat-realm serve --memory`), and its zuliprc. */
  'server',
  /** Each `console.log(…); // text` must print `text`. */
  'prints',
  /** Runs in this checkout (commands for a clone of the repository), not in a scratch project. */
  'checkout',
] as const;
export type Directive = (typeof DIRECTIVES)[number];

export interface DocBlock {
  /** Path from the repository root. */
  readonly file: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The info string's first word, lower-case ('' when none). */
  readonly lang: string;
  readonly code: string;
  readonly directives: ReadonlySet<string>;
  readonly reason: string | undefined;
}

export type BlockKind = 'code' | 'shell' | 'json' | 'output';

export function kindOf(block: DocBlock): BlockKind {
  if (['ts', 'typescript', 'js', 'javascript', 'mjs'].includes(block.lang)) return 'code';
  if (['sh', 'bash', 'shell'].includes(block.lang)) return 'shell';
  if (['json', 'jsonc'].includes(block.lang)) return 'json';
  return 'output';
}

export const label = (b: DocBlock): string => `${b.file}:${b.line} (${b.lang || 'no language'})`;

const MARKER = /^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$/;
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/;

/** The documents whose blocks are checked: README.md, docs/**.md, bench/README.md. */
export function documentFiles(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return path === join('docs', 'api') ? [] : walk(path);
      return e.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', ...walk('docs').sort(), 'bench/README.md'];
}

export function blocksOf(root: string, file: string): DocBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  let marker: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const m = MARKER.exec(text);
    if (m) {
      marker = m[1]!;
      continue;
    }
    const open = FENCE.exec(text);
    if (!open) {
      // A marker applies to the next block, across blank lines only.
      if (text.trim() !== '') marker = undefined;
      continue;
    }
    const [, indent, fence] = open;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.trim().startsWith(fence!) && line.trim().replace(/[`~]/g, '') === '') break;
      body.push(line.startsWith(indent!) ? line.slice(indent!.length) : line.trimStart());
    }
    const [words = '', reason] = (marker ?? '').split(/\s+—\s+/, 2);
    blocks.push({
      file: relative(root, join(root, file)),
      line: start + 1,
      lang: open[3]!.toLowerCase(),
      code: body.join('\n') + '\n',
      directives: new Set(words.split(/[\s,]+/).filter(Boolean)),
      reason: reason?.trim() || undefined,
    });
    marker = undefined;
  }
  return blocks;
}

export function allBlocks(root: string): DocBlock[] {
  return documentFiles(root).flatMap((f) => blocksOf(root, f));
}

/**
 * The programs to run: each block with the blocks it continues (`continues`), one program per
 * chain, named by its last block. A block that a later one continues runs as part of that chain.
 */
export function programs(blocks: readonly DocBlock[]): DocBlock[][] {
  const chains: DocBlock[][] = [];
  const last = new Map<string, DocBlock[]>();
  for (const b of blocks) {
    const key = `${b.file}\0${kindOf(b)}\0${b.lang}`;
    const previous = last.get(key);
    let chain: DocBlock[];
    if (b.directives.has('continues')) {
      if (!previous) throw new Error(`${label(b)}: 'continues' but no earlier ${b.lang} block in the file`);
      chain = [...previous, b];
      const at = chains.indexOf(previous);
      if (at >= 0) chains.splice(at, 1);
    } else chain = [b];
    chains.push(chain);
    last.set(key, chain);
  }
  return chains;
}

/** The commands of a shell block: one per logical line (`\` continues a line), comments dropped. */
export function commandsOf(code: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const line of code.split('\n')) {
    if (current === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue;
    if (line.endsWith('\\')) current += line + '\n';
    else {
      out.push(current + line);
      current = '';
    }
  }
  if (current.trim()) out.push(current);
  return out;
}
