/**
 * Dependencies point inward (see ../shared/DESIGN.md §2): the core imports ports, not adapters or
 * the sandbox; each vendor SDK is imported only where its port is implemented.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const COMPOSITION_ROOTS = new Set([
  'src/main.ts',
  'src/console-command.ts',
  'src/create-tally.ts',
  'src/serve-chat.ts',
  'src/chat-adapters.ts',
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
  dockerode: /^(sandbox\/|src\/create-tally\.ts$)/,
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
};

const product = [...sources('src'), ...sources('sandbox'), ...sources('adapters'), ...sources('telco_data')];

describe('import boundaries', () => {
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
    const allowed = /^src\/(ports|agent|sessions|report|training)\/|^src\/(errors|logger)\.js$/;
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
        .filter((path) => path.startsWith('src/') && !/^src\/(ports\/|errors\.js$|logger\.js$)/.test(path)),
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
