/**
 * The `@example` blocks of the public API are code: this suite finds every value exported by the
 * public entry points (`chat-realm` = src/index.ts, `chat-realm/testing` = src/testing/index.ts,
 * `chat-realm/testing/arbitraries` = src/testing/arbitraries.ts),
 * requires each to carry at least one `@example`, type-checks every example against the real
 * declarations and then runs it.
 *
 * Conventions for examples (so they stay short):
 * - They may use, without declaring them: `realm` (the dev-realm fixture, test/fixtures/dev-realm.json:
 *   1 Desdemona owner, 2 Iago admin, 4 King Hamlet member, 10 Polonius guest, 11 a bot of Hamlet's...),
 *   `now` (the fixture's `now`), `expect` (vitest) and `fc` (fast-check). Everything exported by the
 *   entry points is in scope too.
 * - `import … from 'chat-realm'` (or `/testing`, `/testing/arbitraries`) lines are allowed and dropped.
 * - The code may be fenced (```ts) or bare; it runs inside an async function, so `await` works.
 */
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

/** Type-checks every example at once, each in a virtual module that imports the whole public API. */
function typeErrors(): Map<string, string[]> {
  const virtualDir = join(ROOT, 'test/docs');
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
  ].join('\n');
  const preambleLines = preamble.split('\n').length;
  const files = new Map<string, Example>();
  for (const ex of examples) {
    files.set(join(virtualDir, `__example_${ex.name}_${ex.index}.ts`), ex);
  }
  const text = (ex: Example) =>
    `${preamble}\nexport async function example(): Promise<void> {\n${ex.code.replace(IMPORT_LINE, '')}\n}\n`;
  const options = program.getCompilerOptions();
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const ex = files.get(fileName);
    return ex
      ? ts.createSourceFile(fileName, text(ex), languageVersion, true)
      : getSourceFile(fileName, languageVersion, ...rest);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (f) => files.has(f) || fileExists(f);
  const checkProgram = ts.createProgram([...files.keys()], options, host, program);
  const errors = new Map<string, string[]>();
  for (const [fileName, ex] of files) {
    const sf = checkProgram.getSourceFile(fileName)!;
    const diags = [...checkProgram.getSyntacticDiagnostics(sf), ...checkProgram.getSemanticDiagnostics(sf)];
    const key = `${ex.name}#${ex.index}`;
    for (const d of diags) {
      const line =
        d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line - preambleLines - 1;
      errors.set(key, [
        ...(errors.get(key) ?? []),
        `line ${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      ]);
    }
  }
  return errors;
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
    expect(Object.fromEntries(typeErrors())).toEqual({});
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
