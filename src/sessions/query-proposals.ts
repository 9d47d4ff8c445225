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
import type { QueryProposal } from './session-record.js';
import { DONE, type Handled, mayDecide, type ThreadContext } from './thread-context.js';
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
  await thread.emit({
    kind: 'review',
    id: 'query',
    version: 1,
    title: `Save as a verified query: ${proposal.name}`,
    markdown: `The SQL behind ${section.id}'s numbers, for the question "${proposal.question}" on ${proposal.database}. Accept to add it to the knowledge store as a verified query (\`accept query\`), or discard it.\n\n\`\`\`sql\n${proposal.sql}\n\`\`\``,
    figures: [],
    cells: [],
    controls: ['accept', 'discard'],
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
  if (!(await mayDecide(thread, 'save verified queries'))) return DONE;
  if (action === 'revise') {
    await thread.emit({
      kind: 'text',
      markdown: 'A proposed query can be accepted or discarded; edit its file after saving to change it.',
    });
    return DONE;
  }
  delete thread.session.queryProposal;
  await thread.log.append({ kind: 'decision', user: thread.inbound.user.id, section: 'query', version: 1, action });
  if (action === 'discard' || !options.knowledgeDir) {
    await thread.emit({ kind: 'text', markdown: `Discarded the proposed query '${proposal.name}'.` });
    return DONE;
  }
  const folder = join(options.knowledgeDir, proposal.database);
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
  await options.onQueryVerified?.(path);
  await thread.emit({
    kind: 'text',
    markdown: `Saved the verified query '${proposal.name}' as ${path}. Requests like this one will be offered it from now on.`,
  });
  return DONE;
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
