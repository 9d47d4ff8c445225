/**
 * Learning from accepted work: when a section is accepted, the SQL behind its numbers is proposed as
 * a verified query of the knowledge store (Accept / Discard for the thread's owner and reviewers;
 * `accept query` typed in the console). Accepted, it is written as a YAML file into
 * `<TALLY_KNOWLEDGE_DIR>/<database>/`, reviewed like code from then on, and the agent uses it. The
 * file records the thread and what it read (`thread:`, `grants:`): the query and its question are
 * offered only to people who may read all of that. Publishing it is audited.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { Cell, Section } from '../report/report.js';
import { latest } from '../report/report.js';
import { decideDraft, showDraft } from './pending-draft.js';
import type { QueryProposal } from './session-record.js';
import { DONE, type Handled, type ThreadContext } from './thread-context.js';
import { derivationOf, publishedEvent } from './thread-derivation.js';

export interface QueryProposalOptions {
  /** Where accepted proposals are written, one folder per database (TALLY_KNOWLEDGE_DIR). */
  knowledgeDir?: string;
  /** Told when a verified query was written, so the agent uses it from now on. */
  onQueryVerified?: (path: string) => Promise<void>;
}

/**
 * The SQL behind an accepted section's numbers: the query whose result holds most of its grounded
 * figures, unless it already is a verified query. None when no figure comes straight from a query
 * (computed in Python, say): an extraction is not the query that answers the question.
 */
export function proposalFor(section: Section): QueryProposal | undefined {
  const version = latest(section);
  const sql = version.cells.filter(
    (cell): cell is Cell & { database: string } => cell.language === 'sql' && !!cell.database,
  );
  const quoted = (cell: Cell) =>
    (version.checks ?? []).filter((check) => check.source !== undefined && check.source === cell.call).length;
  const chosen = [...sql].sort((left, right) => quoted(right) - quoted(left))[0];
  if (!chosen || quoted(chosen) === 0 || chosen.verifiedQuery) return undefined;
  return { database: chosen.database, name: version.title, question: section.request, sql: chosen.code.trim() };
}

/** Shows the proposal for review after a section was accepted. */
export async function proposeVerifiedQuery(
  thread: ThreadContext,
  section: Section,
  options: QueryProposalOptions,
): Promise<void> {
  if (!options.knowledgeDir) return;
  const proposal = proposalFor(section);
  if (!proposal) return;
  thread.session.queryProposal = proposal;
  await showDraft(thread, {
    id: 'query',
    title: `Save as a verified query: ${proposal.name}`,
    markdown: `The SQL behind ${section.id}'s numbers, for the question "${proposal.question}" on ${proposal.database}. Accept to add it to the knowledge store as a verified query (\`accept query\`), or discard it.\n\n\`\`\`sql\n${proposal.sql}\n\`\`\``,
  });
}

/** Accept writes the proposal into the knowledge store; discard drops it. */
export async function decideQueryProposal(
  thread: ThreadContext,
  options: QueryProposalOptions,
  action: 'accept' | 'revise' | 'discard',
): Promise<Handled> {
  const proposal = thread.session.queryProposal;
  if (!proposal) {
    await thread.emit({ kind: 'text', markdown: 'No query is waiting to be saved.' });
    return DONE;
  }
  const { knowledgeDir } = options;
  return decideDraft(
    thread,
    { id: 'query', noun: 'proposed query', permission: 'save verified queries', name: proposal.name },
    action,
    {
      drop: () => {
        delete thread.session.queryProposal;
      },
      save: async () => {
        // The knowledge store was configured away since the proposal: nowhere to save it.
        if (!knowledgeDir) return `Discarded the proposed query '${proposal.name}'.`;
        const path = await saveVerifiedQuery(thread, proposal, knowledgeDir);
        await options.onQueryVerified?.(path);
        return `Saved the verified query '${proposal.name}' as ${path}. Requests like this one will be offered it from now on.`;
      },
    },
  );
}

/** Writes the proposal as a verified query file of its database's folder, with the thread's grants, and audits it. */
async function saveVerifiedQuery(
  thread: ThreadContext,
  proposal: QueryProposal,
  knowledgeDir: string,
): Promise<string> {
  const folder = join(knowledgeDir, proposal.database);
  await mkdir(folder, { recursive: true });
  const query = {
    name: proposal.name,
    question: proposal.question,
    sql: proposal.sql,
    verified_by: thread.inbound.user.id,
  };
  const derivation = derivationOf(thread);
  const file = {
    queries: [query],
    thread: derivation.thread,
    ...(derivation.grantsUsed ? { grants: derivation.grantsUsed } : {}),
  };
  const path = await writeNew(folder, slug(proposal.name), stringify(file));
  await thread.audit.record({
    ...publishedEvent('verified-query', proposal.name, path, derivation),
    database: proposal.database,
  });
  return path;
}

const slug = (name: string) =>
  `verified-${
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'query'
  }`;

/** Writes `<base>.yaml`, or `<base>-2.yaml` … when it exists: a saved query is never overwritten. */
async function writeNew(folder: string, base: string, content: string): Promise<string> {
  for (let n = 1; ; n += 1) {
    const path = join(folder, `${base}${n === 1 ? '' : `-${n}`}.yaml`);
    try {
      await writeFile(path, content, { flag: 'wx' });
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
