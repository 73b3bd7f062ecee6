/**
 * The `@example` blocks of the public API are code: this suite finds every value exported by the
 * public entry points (`chat-realm` = src/index.ts, `chat-realm/testing` = src/testing/index.ts,
 * `chat-realm/testing/arbitraries` = src/testing/arbitraries.ts), requires each to carry at least
 * one `@example`, type-checks every example against the real declarations and then runs it. The
 * abridged operation file of docs/ARCHITECTURE.md is type-checked too, as if it were in
 * src/ops/channels (the other blocks of the documentation: code-blocks.test.ts).
 *
 * Conventions for examples (so they stay short):
 * - They may use, without declaring them: `realm` (the dev-realm fixture, test/fixtures/dev-realm.json:
 *   1 Desdemona owner, 2 Iago admin, 4 King Hamlet member, 10 Polonius guest, 11 a bot of Hamlet's...),
 *   `now` (the fixture's `now`), `expect` (vitest) and `fc` (fast-check). Everything exported by the
 *   entry points is in scope too.
 * - `import … from 'chat-realm'` (or `/testing`, `/testing/arbitraries`) lines are allowed and dropped.
 * - The code may be fenced (```ts) or bare; it runs inside an async function, so `await` works.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as lib from '../../src/index';
import * as testing from '../../src/testing/index';
import * as arbitraries from '../../src/testing/arbitraries';
import { devRealm } from '../support/realm';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY_POINTS = {
  'chat-realm': 'src/index.ts',
  'chat-realm/testing': 'src/testing/index.ts',
  'chat-realm/testing/arbitraries': 'src/testing/arbitraries.ts',
} as const;

const RUNTIME: Record<keyof typeof ENTRY_POINTS, object> = {
  'chat-realm': lib,
  'chat-realm/testing': testing,
  'chat-realm/testing/arbitraries': arbitraries,
};

interface Example {
  readonly entry: string;
  readonly name: string;
  readonly index: number;
  readonly file: string;
  readonly code: string;
}

interface Exported {
  readonly entry: string;
  readonly name: string;
  readonly isValue: boolean;
}

/** The text of each `@example` tag in a JSDoc comment, `*` margins removed, fences stripped. */
function examplesOf(jsDocText: string): string[] {
  const lines = jsDocText
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, ''));
  const out: string[] = [];
  let current: string[] | null = null;
  for (const line of lines) {
    const tag = /^@(\w+)(.*)$/.exec(line);
    if (tag) {
      if (current) out.push(current.join('\n'));
      current = tag[1] === 'example' ? [tag[2]!.trim()] : null;
    } else if (current) current.push(line);
  }
  if (current) out.push(current.join('\n'));
  return out.map((text) => {
    const fenced = /```\w*\n([\s\S]*?)```/.exec(text);
    return (fenced ? fenced[1]! : text).trim();
  });
}

function collect(): { program: ts.Program; exported: Exported[]; examples: Example[] } {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  );
  const options = { ...config!.options, noEmit: true };
  const roots = Object.values(ENTRY_POINTS).map((f) => join(ROOT, f));
  const program = ts.createProgram(roots, options);
  const checker = program.getTypeChecker();
  const exported: Exported[] = [];
  const examples: Example[] = [];
  for (const [entry, file] of Object.entries(ENTRY_POINTS)) {
    const source = program.getSourceFile(join(ROOT, file))!;
    const moduleSymbol = checker.getSymbolAtLocation(source)!;
    for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      // `export type *` re-exports consts as types only: what counts is what exists at run time.
      const isValue =
        (target.flags & ts.SymbolFlags.Value) !== 0 &&
        symbol.name in RUNTIME[entry as keyof typeof ENTRY_POINTS];
      exported.push({ entry, name: symbol.name, isValue });
      if (!isValue) continue;
      let index = 0;
      for (const decl of target.declarations ?? []) {
        for (const doc of ts.getJSDocCommentsAndTags(decl)) {
          if (!ts.isJSDoc(doc)) continue;
          for (const code of examplesOf(doc.getText())) {
            examples.push({
              entry,
              name: symbol.name,
              index: index++,
              file: relative(ROOT, decl.getSourceFile().fileName),
              code,
            });
          }
        }
      }
    }
  }
  return { program, exported, examples };
}

const IMPORT_LINE = /^import\s[^;]*?from\s+'chat-realm(\/testing(\/arbitraries)?)?';\s*$/gm;

const { program, exported, examples } = collect();
const values = exported.filter((e) => e.isValue);

interface VirtualSource {
  readonly key: string;
  readonly text: string;
  /** Lines before the example's first line (for error positions). */
  readonly offset: number;
}

/** Type-checks virtual modules (placed in test/docs) against the real sources, in one program. */
function typeCheck(sources: readonly VirtualSource[]): Record<string, string[]> {
  const files = new Map(
    sources.map((src) => [join(ROOT, 'test/docs', `__${src.key.replace(/\W/g, '_')}.ts`), src]),
  );
  const options = program.getCompilerOptions();
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const src = files.get(fileName);
    return src
      ? ts.createSourceFile(fileName, src.text, languageVersion, true)
      : getSourceFile(fileName, languageVersion, ...rest);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (f) => files.has(f) || fileExists(f);
  const checkProgram = ts.createProgram([...files.keys()], options, host, program);
  const errors: Record<string, string[]> = {};
  for (const [fileName, src] of files) {
    const sf = checkProgram.getSourceFile(fileName)!;
    for (const d of [
      ...checkProgram.getSyntacticDiagnostics(sf),
      ...checkProgram.getSemanticDiagnostics(sf),
    ]) {
      const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line - src.offset;
      // Negative: the preamble, where a guide's imports are moved.
      const where = line < 0 ? 'preamble/imports' : `line ${line + 1}`;
      (errors[src.key] ??= []).push(`${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return errors;
}

/** Every API example in a module that imports the whole public API. */
function apiExampleSources(): VirtualSource[] {
  // Each name once: the first entry point that exports it provides it.
  const taken = new Set<string>();
  const imports = Object.entries(ENTRY_POINTS).map(([entry, file]) => {
    const names = exported.filter((e) => e.entry === entry && !taken.has(e.name));
    for (const e of names) taken.add(e.name);
    const list = names.map((e) => (e.isValue ? e.name : `type ${e.name}`)).join(', ');
    return `import { ${list} } from '../../${file.replace(/\.ts$/, '')}';`;
  });
  const preamble = [
    ...imports,
    `import { expect } from 'vitest';`,
    `import fc from 'fast-check';`,
    `declare const realm: RealmState;`,
    `declare const now: number;`,
    `void [expect, fc, realm, now];`,
    `export async function example(): Promise<void> {`,
  ];
  return examples.map((ex) => ({
    key: `${ex.name}#${ex.index}`,
    text: `${preamble.join('\n')}\n${ex.code.replace(IMPORT_LINE, '')}\n}\n`,
    offset: preamble.length,
  }));
}

/** Where each public import specifier points, from test/docs (package.json `exports`). */
const SPECIFIERS: Readonly<Record<string, string>> = {
  'chat-realm': '../../src/index',
  'chat-realm/testing': '../../src/testing/index',
  'chat-realm/testing/arbitraries': '../../src/testing/arbitraries',
  'chat-realm/host': '../../src/host/index',
  'chat-realm/server': '../../src/server/index',
  'chat-realm/stores/memory': '../../src/stores/memory/index',
  'chat-realm/stores/sqlite': '../../src/stores/sqlite/index',
  'chat-realm/stores/postgres': '../../src/stores/postgres/index',
};

/** Import declarations of a block (possibly over several lines). */
const IMPORT_DECL = /^import\s[^;]*?from\s+'[^']+';[^\S\n]*(\/\/.*)?$/gm;

/**
 * The TypeScript blocks of a Markdown document, its `chat-realm` imports pointed at the sources.
 * `prelude` declares the free names that the document's fragments use (and the guides' `realm`).
 */
function guideSources(
  guide: string,
  prelude: readonly string[] = [],
  /** The source folder a block's relative imports start from (the file the block shows). */
  base = 'src',
): VirtualSource[] {
  const text = readFileSync(join(ROOT, guide), 'utf8');
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((m, i) => {
    const block = m[1]!;
    const imports = [...block.matchAll(IMPORT_DECL)].map((d) =>
      d[0].replace(/'([^']*)'/, (whole, spec: string) => {
        if (spec.startsWith('.')) return `'${relative(join(ROOT, 'test/docs'), join(ROOT, base, spec))}'`;
        const target = SPECIFIERS[spec];
        // An unknown subpath stays as written, so it fails to resolve (it is not exported either).
        return target === undefined ? whole : `'${target}'`;
      }),
    );
    // The block becomes a function body: an exported declaration is declared locally instead.
    const body = block
      .replace(IMPORT_DECL, '')
      .replace(/^export (?=const |function |interface |type )/gm, '');
    const header = [
      ...imports,
      ...(imports.some((l) => l.includes(`'vitest'`)) ? [] : [`import { expect } from 'vitest';`]),
      ...prelude,
      `void expect;`,
    ];
    const preamble = [...header.join('\n').split('\n'), `export async function example(): Promise<void> {`];
    return {
      key: `${guide} block ${i + 1}`,
      text: `${preamble.join('\n')}\n${body}\n}\n`,
      // Imports move up, leaving blank lines: positions are the block's own lines (single-line imports).
      offset: preamble.length,
    };
  });
}

describe('API examples', () => {
  it('finds the public API', () => {
    expect(values.map((v) => v.name)).toEqual(
      expect.arrayContaining(['createRealm', 'editChannel', 'realmBuilder', 'actAs']),
    );
  });

  it('documents every exported value of the entry points with an @example', () => {
    const documented = new Set(examples.map((e) => `${e.entry}:${e.name}`));
    const missing = values
      .filter((v) => !documented.has(`${v.entry}:${v.name}`))
      .map((v) => `${v.entry}: ${v.name}`);
    expect(missing).toEqual([]);
  });

  it('type-checks every example', () => {
    expect(typeCheck(apiExampleSources())).toEqual({});
  });

  // The blocks of README.md and docs/ are type-checked and run against the built package by
  // code-blocks.test.ts. The one exception is ARCHITECTURE.md's abridged operation file: its
  // relative imports resolve only inside src/, so it is type-checked here, placed in src/ops/channels.
  it('type-checks the operation file of docs/ARCHITECTURE.md', () => {
    const [operation] = guideSources('docs/ARCHITECTURE.md', [], 'src/ops/channels');
    expect(operation!.text).toContain('export const editChannel = defineOperation({'.replace('export ', ''));
    expect(typeCheck([operation!])).toEqual({});
  });

  const scope: Record<string, unknown> = {
    ...lib,
    ...testing,
    ...arbitraries,
    expect,
    fc,
    now: devRealm().now ?? 0,
  };
  const seen = new Set<string>();
  for (const ex of examples) {
    // The same declaration re-exported by both entry points runs once.
    const key = `${ex.file}:${ex.name}:${ex.index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    it(`runs the example of ${ex.name}${ex.index > 0 ? ` (#${ex.index + 1})` : ''} (${ex.file})`, async () => {
      const js = ts.transpileModule(ex.code.replace(IMPORT_LINE, ''), {
        compilerOptions: {
          target: ts.ScriptTarget.ES2022,
          module: ts.ModuleKind.ESNext,
          verbatimModuleSyntax: false,
        },
      }).outputText;
      const names = [...Object.keys(scope), 'realm'];
      // A block, so the example may declare its own `realm` or `now`.
      const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
        ...args: string[]
      ) => (...a: unknown[]) => Promise<void>;
      const run = new AsyncFunction(...names, `{\n${js}\n}`);
      await run(...Object.values(scope), devRealm());
    });
  }
});
