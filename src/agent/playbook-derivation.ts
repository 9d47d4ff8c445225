/**
 * A playbook saved from a thread says so in its front matter: `thread:` the thread's key and `grants:` what the
 * thread had read, as one line of JSON (`{"finance/salaries":{"name":"raw","salary":"raw"}}`). A reader is offered
 * the playbook only when they hold all of it (derived-access.ts).
 */
import { PromptFileError } from '../base/errors.js';
import type { Derivation } from '../ports/access.js';
import { usedGrantsSchema } from './derived-access.js';

/** The derivation the front matter records; undefined when it names neither thread nor grants. */
export function parseDerivation(path: string, fields: Readonly<Record<string, string>>): Derivation | undefined {
  const { thread, grants } = fields;
  if (!thread && !grants) return undefined;
  if (!grants) return { ...(thread ? { thread } : {}) };
  const shape = `front matter 'grants' must be JSON mapping "database/table" to {"column": "raw|hash|redact|denied"}`;
  let json: unknown;
  try {
    json = JSON.parse(grants);
  } catch {
    throw new PromptFileError(path, `${shape}; it is not JSON`);
  }
  const parsed = usedGrantsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new PromptFileError(path, `${shape} (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`);
  }
  return { ...(thread ? { thread } : {}), grantsUsed: parsed.data };
}

/** The playbook's Markdown with `thread:` and `grants:` set in its front matter (replacing any there). */
export function stampDerivation(markdown: string, derivation: Derivation): string {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(markdown.replace(/\r\n/g, '\n'));
  if (!match) throw new Error('a playbook starts with front matter between --- lines');
  const kept = (match[1] ?? '').split('\n').filter((line) => !/^(thread|grants):/.test(line));
  const lines = [
    ...kept,
    ...(derivation.thread ? [`thread: ${derivation.thread}`] : []),
    ...(derivation.grantsUsed ? [`grants: ${JSON.stringify(derivation.grantsUsed)}`] : []),
  ];
  return `---\n${lines.join('\n')}\n---\n${markdown.replace(/\r\n/g, '\n').slice(match[0].length)}`;
}
