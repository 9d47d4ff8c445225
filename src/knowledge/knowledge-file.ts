/**
 * One file of a knowledge folder, read into what it knows. YAML files may hold any of:
 *
 *   definitions: [{ name, synonyms?, definition, sql? }]     business definitions (churn rate, active customer)
 *   tables: { <table>: { description?, columns?: { <column>: text | { description, synonyms? } } } }
 *   joins: [{ tables: [a, b], on, note? }]                   how tables join
 *   queries: [{ name, question, sql, parameters?, verified_by }]   verified queries; {{name}} marks a parameter
 *   thread, grants: { <database/table>: { <column>: raw|hash|redact|denied } }
 *                                                            learned from a thread: which, and what it had read
 *
 * A Markdown file is a set of notes, one per `## ` section (the text before the first is one too).
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { usedGrantsSchema } from '../agent/derived-access.js';
import type { FileIssue } from '../base/errors.js';

const text = z.string().trim().min(1);
const column = z.union([text, z.object({ description: text, synonyms: z.array(text).default([]) }).strict()]);

const fileSchema = z
  .object({
    definitions: z
      .array(
        z.object({ name: text, synonyms: z.array(text).default([]), definition: text, sql: text.optional() }).strict(),
      )
      .default([]),
    tables: z
      .record(text, z.object({ description: text.optional(), columns: z.record(text, column).default({}) }).strict())
      .default({}),
    joins: z.array(z.object({ tables: z.array(text).min(2), on: text, note: text.optional() }).strict()).default([]),
    queries: z
      .array(
        z
          .object({
            name: text,
            question: text,
            sql: text,
            parameters: z
              .array(
                z
                  .object({
                    name: z.string().regex(/^\w+$/, 'letters, digits and _'),
                    description: text.optional(),
                    default: z.union([z.string(), z.number()]).optional(),
                  })
                  .strict(),
              )
              .default([]),
            verified_by: text,
          })
          .strict(),
      )
      .default([]),
    thread: text.optional(),
    grants: usedGrantsSchema.optional(),
  })
  .strict();

export type KnowledgeYaml = z.infer<typeof fileSchema>;

export interface KnowledgeNote {
  title: string;
  text: string;
}

/** What one file knows, with the issues that make it invalid. */
export interface ParsedKnowledgeFile {
  knowledge: KnowledgeYaml;
  notes: KnowledgeNote[];
  issues: FileIssue[];
}

const EMPTY: KnowledgeYaml = { definitions: [], tables: {}, joins: [], queries: [] };

export function parseKnowledgeFile(name: string, content: string): ParsedKnowledgeFile {
  if (name.endsWith('.md')) return { knowledge: EMPTY, notes: markdownNotes(name, content), issues: [] };
  let raw: unknown;
  try {
    raw = parseYaml(content) ?? {};
  } catch (error) {
    return {
      knowledge: EMPTY,
      notes: [],
      issues: [{ entry: '(file)', field: '', message: `not YAML: ${(error as Error).message}` }],
    };
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({
      entry: issue.path.slice(0, 2).join('.') || '(file)',
      field: issue.path.slice(2).join('.'),
      message: issue.message,
    }));
    return { knowledge: EMPTY, notes: [], issues };
  }
  const issues = parsed.data.queries.flatMap((query, index) => parameterIssues(query, index));
  return { knowledge: parsed.data, notes: [], issues };
}

/** Every `{{name}}` in a query's SQL is a declared parameter, and every parameter is used. */
function parameterIssues(query: KnowledgeYaml['queries'][number], index: number): FileIssue[] {
  const used = new Set([...query.sql.matchAll(/\{\{(\w+)\}\}/g)].map((match) => match[1] ?? ''));
  const declared = new Set(query.parameters.map((parameter) => parameter.name));
  const entry = `queries.${index}`;
  return [
    ...[...used]
      .filter((name) => !declared.has(name))
      .map((name) => ({ entry, field: 'sql', message: `{{${name}}} is not among its parameters` })),
    ...[...declared]
      .filter((name) => !used.has(name))
      .map((name) => ({ entry, field: 'parameters', message: `${name} is not used in its sql` })),
  ];
}

function markdownNotes(name: string, content: string): KnowledgeNote[] {
  const parts = content.split(/^## +/m);
  const notes: KnowledgeNote[] = [];
  parts.forEach((part, index) => {
    const [first = '', ...rest] = part.split('\n');
    const title = index === 0 ? (/^# +(.+)$/m.exec(part)?.[1] ?? name) : first.trim();
    const body = (index === 0 ? part.replace(/^# +.+$/m, '') : rest.join('\n')).trim();
    if (body) notes.push({ title: title.trim(), text: body });
  });
  return notes;
}
