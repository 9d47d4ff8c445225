/**
 * Report commands in a thread: `report` exports the accepted sections (Markdown with its figures,
 * one HTML page, a notebook) as files; `save as playbook` drafts a playbook from the accepted
 * sections and shows it for review; accepting the draft writes it where playbooks are read from,
 * with the thread's key and what the thread read in its front matter (it is offered only to people
 * who may read all of that), and audits the publication.
 */
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { grantedTables } from '../agent/derived-access.js';
import { stampDerivation } from '../agent/playbook-derivation.js';
import { draftPlaybook } from '../agent/playbook-draft.js';
import type { Database } from '../ports/database.js';
import { exportReport } from '../report/export-report.js';
import type { ReportDocument } from '../report/report-document.js';
import { decideDraft, showDraft } from './pending-draft.js';
import { savedPlaybookKey } from './session-record.js';
import { DONE, type Handled, mayDecide, type ThreadContext } from './thread-context.js';
import { derivationOf, publishedEvent } from './thread-derivation.js';

export interface ReportCommandOptions {
  databases: Database[];
  /** Where accepted playbooks are written. */
  playbookDir: string;
  /** Told when a playbook was written, so the agent follows it from now on. */
  onPlaybookSaved: (path: string) => Promise<void>;
}

const databasesOf = (databases: Database[]): ReportDocument['databases'] =>
  databases.map((database) => ({ name: database.name, dialect: database.dialect }));

export async function exportThreadReport(thread: ThreadContext, options: ReportCommandOptions): Promise<Handled> {
  const document = await thread.book.document(databasesOf(options.databases));
  if (document.sections.length === 0) {
    await thread.emit({
      kind: 'text',
      markdown: 'The report has no accepted sections yet, so there is nothing to export.',
    });
    return DONE;
  }
  const files = exportReport(document);
  // A report holds what its thread read: only people holding all of it reach this command (the thread refuses the
  // rest), and the record names it.
  const tables = grantedTables(thread.session.grantsUsed);
  for (const file of files) {
    await thread.audit.record({
      kind: 'export',
      decision: 'allowed',
      file: file.path,
      bytes: file.content.byteLength,
      ...(tables.length > 0 ? { tables } : {}),
    });
    await thread.emit({ kind: 'file', name: file.path, mime: file.mime, content: file.content, title: document.title });
  }
  const exported = files.map((file) => file.path).filter((path) => !path.includes('/'));
  thread.session.exports = [...(thread.session.exports ?? []), ...exported];
  const titles = document.sections.map((section, index) => `${index + 1}. ${section.title}`).join('\n');
  await thread.emit({
    kind: 'text',
    markdown: `Report exported with ${document.sections.length} accepted section(s):\n${titles}\n\nFiles: ${exported.join(', ')}`,
  });
  return DONE;
}

export async function draftPlaybookFromReport(
  thread: ThreadContext,
  options: ReportCommandOptions,
  title: string | undefined,
): Promise<Handled> {
  if (!(await mayDecide(thread, 'save playbooks'))) return DONE;
  const document = await thread.book.document(databasesOf(options.databases));
  if (document.sections.length === 0) {
    await thread.emit({
      kind: 'text',
      markdown: 'A playbook is made only from accepted sections, and this report has none yet.',
    });
    return DONE;
  }
  const existingFiles = await readdir(options.playbookDir).catch(() => []);
  const draft = draftPlaybook(document, { ...(title ? { title } : {}), existingFiles });
  thread.session.playbookDraft = draft;
  await showDraft(thread, { id: 'playbook', title: `Playbook draft: ${draft.title}`, markdown: draft.markdown });
  return DONE;
}

/** Accept writes the drafted playbook; discard drops it. */
export async function decidePlaybook(
  thread: ThreadContext,
  options: ReportCommandOptions,
  action: 'accept' | 'revise' | 'discard',
): Promise<Handled> {
  const draft = thread.session.playbookDraft;
  if (!draft) return DONE;
  return decideDraft(
    thread,
    { id: 'playbook', noun: 'playbook draft', permission: 'save playbooks', name: draft.title },
    action,
    {
      drop: () => {
        delete thread.session.playbookDraft;
      },
      save: async () => {
        await mkdir(options.playbookDir, { recursive: true });
        const path = join(options.playbookDir, draft.file);
        // The grants as they are now, not at the draft: the thread may have read more since.
        const derivation = derivationOf(thread);
        await writeFile(path, stampDerivation(draft.markdown, derivation), { flag: 'wx' });
        await thread.audit.record(publishedEvent('playbook', draft.title, path, derivation));
        await thread.store.set(savedPlaybookKey(thread.inbound.threadKey), path);
        await options.onPlaybookSaved(path);
        return `Saved playbook '${draft.title}' as ${path}. Requests like this one will follow it from now on.`;
      },
    },
  );
}
