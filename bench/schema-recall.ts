/**
 * Recall of the schema benchmark: for each question, the turn's knowledge pieces as the agent retrieves them, then
 * `schemaContext`; a needed table counts as found when `relevant` describes it (its line with columns), not when it
 * is only named. Also the prompt size of each turn (overview plus relevant).
 */
import { relevantKnowledge } from '../src/agent/knowledge-prompt.js';
import { schemaContext } from '../src/agent/schema/schema-context.js';
import type { Database } from '../src/ports/database.js';
import type { Knowledge } from '../src/ports/knowledge.js';
import type { SchemaQuestion } from './schema-questions.js';

export interface RecallMiss {
  question: string;
  missing: string[];
}

export interface RecallResult {
  questions: number;
  tablesNeeded: number;
  tablesFound: number;
  /** tablesFound / tablesNeeded. */
  recall: number;
  /** Questions with every needed table described. */
  questionsCovered: number;
  promptChars: { p50: number; max: number };
  misses: RecallMiss[];
}

/** The table names a `relevant` text describes. */
export function describedTables(relevant: string): Set<string> {
  return new Set([...relevant.matchAll(/^- ([\w.]+) \(/gm)].map((match) => match[1] as string));
}

export async function measureRecall(
  database: Database,
  knowledge: Knowledge,
  questions: readonly SchemaQuestion[],
): Promise<RecallResult> {
  let needed = 0;
  let found = 0;
  let covered = 0;
  const sizes: number[] = [];
  const misses: RecallMiss[] = [];
  for (const { question, tables } of questions) {
    const known = await relevantKnowledge(knowledge, question, [database]);
    const { overview, relevant } = await schemaContext([database], question, known);
    sizes.push(overview.length + relevant.length);
    const described = describedTables(relevant);
    const missing = tables.filter((table) => !described.has(table));
    needed += tables.length;
    found += tables.length - missing.length;
    if (missing.length === 0) covered += 1;
    else misses.push({ question, missing });
  }
  sizes.sort((a, b) => a - b);
  return {
    questions: questions.length,
    tablesNeeded: needed,
    tablesFound: found,
    recall: needed === 0 ? 1 : found / needed,
    questionsCovered: covered,
    promptChars: { p50: sizes[Math.floor((sizes.length - 1) / 2)] ?? 0, max: sizes[sizes.length - 1] ?? 0 },
    misses,
  };
}
