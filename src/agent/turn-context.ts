/**
 * What a turn's requests are told. The schema overview goes into the act stage's system prompt and stays the same
 * for the whole thread; what was found for this request (the tables it needs, the shared files, the knowledge that
 * fits) goes into the request's own message (turn-message.ts), so every request starts with the prefix sent before.
 */
import type { Database } from '../ports/database.js';
import type { Knowledge, KnowledgePiece } from '../ports/knowledge.js';
import { formatKnowledge, knowledgeFor, relevantKnowledge, topicOf } from './knowledge-prompt.js';
import { schemaContext } from './schema/schema-context.js';
import { summariseSharedFiles } from './shared-file-profile.js';
import { renderPrompt, type StagePrompts } from './stage-prompts.js';
import type { TurnRequest } from './turn-request.js';

export interface TurnContextSetup {
  /** The configured databases, for a request that names none of its own. */
  databases: Database[];
  knowledge?: Knowledge;
  prompts: StagePrompts;
}

export interface TurnContext {
  databases: Database[];
  /** The knowledge as the request's reader may have it. */
  knowledge: Knowledge | undefined;
  /** The pieces that fit the request. */
  known: KnowledgePiece[];
  /** The act stage's system prompt. */
  system: string;
  /** What was found for this request: the tables described, the shared files, the knowledge. */
  found: string;
  /** The overview and what was found: what the code reviewer and an out-of-scope answer are shown. */
  schema: string;
}

export async function turnContext(request: TurnRequest, setup: TurnContextSetup): Promise<TurnContext> {
  const databases = request.databases ?? setup.databases;
  const files = summariseSharedFiles(request.conversation.files ?? []);
  const knowledge = setup.knowledge && knowledgeFor(setup.knowledge, request.reader);
  const topic = topicOf(request);
  const known = knowledge ? await relevantKnowledge(knowledge, topic, databases) : [];
  const { overview, relevant } = await schemaContext(databases, topic, known);
  const found = [relevant, files, formatKnowledge(known)].filter(Boolean).join('\n');
  const system = renderPrompt(setup.prompts.act.template, {
    schema: overview,
    answer: setup.prompts.answer.template,
    reasoning:
      request.settings.cot === 'on'
        ? 'Before each tool call, say in one or two sentences what you check and why.\n'
        : '',
  });
  return { databases, knowledge, known, system, found, schema: [overview, found].filter(Boolean).join('\n') };
}
