/**
 * Dependencies point inward (see ARCHITECTURE.md and ../shared/DESIGN.md §2): the folders of src/ are layers and
 * none imports one above it; no module imports itself through others; the core imports ports, not adapters or
 * the sandbox; each vendor SDK is imported only where its port is implemented.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const COMPOSITION_ROOTS = new Set([
  'src/cli/main.ts',
  'src/cli/console-command.ts',
  'src/wiring/create-tally.ts',
  'src/wiring/create-sandbox.ts',
  'src/wiring/serve-chat.ts',
  'src/wiring/chat-adapters.ts',
]);

function sources(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) found.push(relative(ROOT, path));
    }
  };
  if (existsSync(join(ROOT, folder))) walk(join(ROOT, folder));
  return found;
}

/**
 * Every module a file imports: `import … from`, `export … from`, side-effect imports (`import './x.js'`)
 * and dynamic `import('…')` with a literal specifier.
 */
function imports(file: string): string[] {
  return importsIn(readFileSync(join(ROOT, file), 'utf8'));
}

function importsIn(text: string): string[] {
  const patterns = [
    /(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]/g,
    /(?:^|\n)\s*import\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*(?:'([^']+)'|"([^"]+)"|`([^`$]+)`)\s*[,)]/g,
  ];
  return patterns.flatMap((pattern) =>
    [...text.matchAll(pattern)].map((match) => match[1] ?? match[2] ?? match[3] ?? ''),
  );
}

/** Where a relative import lands, as a repo-relative path. */
function target(file: string, specifier: string): string {
  return relative(ROOT, join(ROOT, file, '..', specifier));
}

const SDK_HOMES: Record<string, RegExp> = {
  dockerode: /^(sandbox\/|src\/wiring\/create-sandbox\.ts$)/,
  '@slack/bolt': /^adapters\/slack\//,
  'discord.js': /^adapters\/discord\//,
  openai: /^src\/llm\//,
  mysql2: /^(src\/db\/|telco_data\/)/,
  'mysql2/promise': /^(src\/db\/|telco_data\/)/,
  'better-sqlite3': /^(src\/db\/|src\/store\/|telco_data\/)/,
  keyv: /^src\/store\//,
  '@keyv/redis': /^src\/store\//,
  '@redis/client': /^src\/store\//,
  redis: /^src\/store\//,
  '@opentelemetry/api': /^src\/ops\/otel-tracing\.ts$/,
  '@opentelemetry/context-async-hooks': /^src\/ops\/otel-tracing\.ts$/,
  '@opentelemetry/exporter-trace-otlp-http': /^src\/ops\/otel-tracing\.ts$/,
  '@opentelemetry/exporter-trace-otlp-proto': /^src\/ops\/otel-tracing\.ts$/,
  '@opentelemetry/resources': /^src\/ops\/otel-tracing\.ts$/,
  '@opentelemetry/sdk-trace-base': /^src\/ops\/otel-tracing\.ts$/,
};

/**
 * The folders of src/, outermost first (ARCHITECTURE.md): the command line, the runs over a whole tally, the
 * composition root, the services that act on stored threads, the implementations of ports, the core, the basics and
 * the ports. A file imports only from its own folder or a tier further in; folders of one tier do not import each
 * other.
 */
const LAYERS: string[][] = [
  ['cli'],
  ['ask', 'eval'],
  ['wiring'],
  ['retention', 'schedules'],
  ['audit', 'policy', 'knowledge'],
  ['db', 'llm', 'store', 'ops', 'budget', 'demo'],
  ['training'],
  ['sessions'],
  ['agent'],
  ['report'],
  ['base'],
  ['ports'],
];
const TIER = new Map(LAYERS.flatMap((folders, tier) => folders.map((folder) => [folder, tier] as const)));

/** The src/ folder a repo-relative path is in (undefined outside src/ or for a file at its top). */
function folderOf(path: string): string | undefined {
  const parts = path.split('/');
  return parts[0] === 'src' && parts.length > 2 ? parts[1] : undefined;
}

/** Repo-relative targets of a file's relative imports, `.js` read as the `.ts` beside it where that exists. */
function localImports(file: string): string[] {
  return imports(file)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => target(file, specifier))
    .map((path) =>
      path.endsWith('.js') && existsSync(join(ROOT, `${path.slice(0, -3)}.ts`)) ? `${path.slice(0, -3)}.ts` : path,
    );
}

/** One import circle among `files`, as the path round it, or undefined. */
function findCircle(files: string[]): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | undefined => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of localImports(file)) {
      if (!files.includes(next)) continue;
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const circle = visit(next);
        if (circle) return circle;
      }
    }
    stack.pop();
    state.set(file, 'done');
    return undefined;
  };
  for (const file of files) {
    if (state.has(file)) continue;
    const circle = visit(file);
    if (circle) return circle;
  }
  return undefined;
}

const product = [...sources('src'), ...sources('sandbox'), ...sources('adapters'), ...sources('telco_data')];

describe('import boundaries', () => {
  it('names every folder of src/ in exactly one layer', () => {
    const folders = readdirSync(join(ROOT, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect([...TIER.keys()].sort()).toEqual(folders.sort());
  });

  it('lets no folder of src/ import from its own tier or one above it', () => {
    const offenders = sources('src').flatMap((file) => {
      const from = folderOf(file);
      const tier = from === undefined ? undefined : TIER.get(from);
      if (from === undefined || tier === undefined) return [`${file} is in no layer`];
      return localImports(file)
        .filter((path) => {
          const to = folderOf(path);
          const toTier = to === undefined ? undefined : TIER.get(to);
          return to !== undefined && to !== from && (toTier === undefined || toTier <= tier);
        })
        .map((path) => `${file} imports ${path}`);
    });
    expect(offenders).toEqual([]);
  });

  it('has no import circles in the product code', () => {
    expect(findCircle(product)).toBeUndefined();
    // The check finds one where there is one.
    const fixture = ['test/fixtures/import-circle/first.ts', 'test/fixtures/import-circle/second.ts'];
    expect(findCircle(fixture)).toEqual([fixture[0], fixture[1], fixture[0]]);
  });

  it('reads every kind of import: static, type-only, re-exports, side effects and dynamic', () => {
    const text = [
      "import { a } from './static.js';",
      "import type { B } from '../type-only.js';",
      'import {\n  c,\n  d,\n} from "./multi-line.js";',
      "export * from './re-export.js';",
      "import './side-effect.js';",
      'import "../side-effect-double.js";',
      "const lazy = await import('./dynamic.js');",
      'const other = await import("../dynamic-double.js");',
      'const tick = await import(`./dynamic-template.js`);',
    ].join('\n');
    expect(importsIn(text).sort()).toEqual(
      [
        './static.js',
        '../type-only.js',
        './multi-line.js',
        './re-export.js',
        './side-effect.js',
        '../side-effect-double.js',
        './dynamic.js',
        '../dynamic-double.js',
        './dynamic-template.js',
      ].sort(),
    );
  });

  it('keeps the core free of adapters and the sandbox implementation', () => {
    const offenders = sources('src')
      .filter((file) => !COMPOSITION_ROOTS.has(file))
      .flatMap((file) =>
        imports(file)
          .filter((specifier) => specifier.startsWith('.'))
          .map((specifier) => [file, target(file, specifier)] as const)
          .filter(([, path]) => path.startsWith('adapters/') || path.startsWith('sandbox/')),
      );
    expect(offenders).toEqual([]);
  });

  it('lets the agent, sessions, report and training use ports, not implementations', () => {
    const allowed = /^src\/(ports|agent|sessions|report|training)\/|^src\/base\/(errors|logger)\.js$/;
    const core = ['src/agent', 'src/sessions', 'src/report', 'src/training'].flatMap((folder) => sources(folder));
    const offenders = core.flatMap((file) =>
      imports(file)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => [file, target(file, specifier)] as const)
        .filter(([, path]) => !allowed.test(path))
        .map(([file, path]) => `${file} imports ${path}`),
    );
    expect(offenders).toEqual([]);
  });

  it('keeps ports free of implementations', () => {
    const offenders = sources('src/ports').flatMap((file) =>
      imports(file).filter((specifier) => !specifier.startsWith('./') && !specifier.startsWith('node:')),
    );
    expect(offenders).toEqual([]);
  });

  it('lets the sandbox use only ports, errors and the logger from the core', () => {
    const offenders = sources('sandbox').flatMap((file) =>
      imports(file)
        .filter((specifier) => specifier.startsWith('.'))
        .map((specifier) => target(file, specifier))
        .filter((path) => path.startsWith('src/') && !/^src\/(ports\/|base\/errors\.js$|base\/logger\.js$)/.test(path)),
    );
    expect(offenders).toEqual([]);
  });

  it('imports each vendor SDK only where its port is implemented', () => {
    const offenders = product.flatMap((file) =>
      imports(file)
        .filter((specifier) => specifier in SDK_HOMES && !SDK_HOMES[specifier]?.test(file))
        .map((specifier) => `${file} imports ${specifier}`),
    );
    expect(offenders).toEqual([]);
  });
});
