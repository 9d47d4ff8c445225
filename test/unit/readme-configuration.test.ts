/**
 * The README's configuration table against what src/base/config.ts, the only reader of the environment, reads: every
 * variable of its schema (src/base/environment-schema.ts) is documented, every documented variable is read, and where
 * both give a plain default they agree. Read from the files themselves, so neither can drift from the other unnoticed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const configSource = readFileSync(join(ROOT, 'src', 'base', 'config.ts'), 'utf8');
const schemaSource = readFileSync(join(ROOT, 'src', 'base', 'environment-schema.ts'), 'utf8');

/** `| \`NAME\` | default | meaning |` rows of the *Configuration* section. */
function documented(): Map<string, string> {
  const section = readme.slice(
    readme.indexOf('## Configuration'),
    readme.indexOf('\n## ', readme.indexOf('## Configuration') + 5),
  );
  const rows = new Map<string, string>();
  for (const match of section.matchAll(/^\| `([A-Z0-9_<>]+)` \| ([^|]*) \|/gm))
    rows.set(match[1] ?? '', (match[2] ?? '').trim());
  return rows;
}

/** The variables of the zod schema, with the default it gives when it is a plain number or word. */
function read(): Map<string, string | undefined> {
  const schema = schemaSource.slice(
    schemaSource.indexOf('export const environmentSchema = z.object({'),
    schemaSource.indexOf('\n});', schemaSource.indexOf('export const environmentSchema')),
  );
  const variables = new Map<string, string | undefined>();
  for (const match of schema.matchAll(/^ {2}([A-Z0-9_]+): (.*)$/gm)) {
    const [, name = '', rest = ''] = match;
    const literal = /(?:count|milliseconds)\(([\d_ *]+)\)/.exec(rest)?.[1] ?? /\.default\(([^)]*)\)/.exec(rest)?.[1];
    variables.set(name, literal === undefined ? undefined : String(evaluate(literal)));
  }
  return variables;
}

/** `30_000`, `10 * 60_000`, `'info'` as the README writes them: `30000`, `600000`, `info`. */
function evaluate(literal: string): string | number {
  const text = literal.trim();
  if (/^'.*'$/.test(text)) return text.slice(1, -1);
  // Arithmetic of whole numbers only (`2 * 1024 ** 3`), from our own source.
  if (/^[\d_ *]+$/.test(text)) return Number(new Function(`return ${text.replaceAll('_', '')}`)());
  return text;
}

/** Read by pattern (environment-schema.ts, config.ts) rather than named in the schema. */
const PATTERNS = ['DATABASE_URL_<NAME>', 'DATABASE_SCHEMAS_<NAME>'];

describe('the README configuration table', () => {
  it('documents every variable src/base/config.ts reads, and no other', () => {
    const rows = documented();
    const variables = read();
    expect([...variables.keys()].filter((name) => !rows.has(name))).toEqual([]);
    expect([...rows.keys()].filter((name) => !variables.has(name) && !PATTERNS.includes(name))).toEqual([]);
    for (const pattern of PATTERNS) expect(rows.has(pattern), pattern).toBe(true);
    expect(schemaSource).toContain('DATABASE_URL_([A-Z0-9_]+)');
    expect(configSource).toContain('NAMED_DATABASE.exec(variable)');
    expect(configSource).toContain('DATABASE_SCHEMAS_');
    expect(rows.get('LLM_MODEL') ? readme : '').toContain('`LLM_MODEL_<STAGE>`');
  });

  it('gives the same default as the code wherever both give a plain one', () => {
    const rows = documented();
    const checked: string[] = [];
    for (const [name, fallback] of read()) {
      const cell = rows.get(name) ?? '';
      const plain = /^`([^`]*)`$/.exec(cell)?.[1];
      if (fallback === undefined || plain === undefined) continue;
      expect(plain, name).toBe(fallback);
      checked.push(name);
    }
    expect(checked.length).toBeGreaterThan(25);
  });
});
