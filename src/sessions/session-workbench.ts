/**
 * The workbench of a thread's turn: cells that ran (with their charts) gather in the conversation as
 * the work behind the next section; `draft` turns them into a section draft in the report book and
 * logs the new version.
 */
import type { Conversation } from '../agent/conversation.js';
import type { DraftedSection, Workbench, WorkCell } from '../agent/tool.js';
import { type Author, addDraft, latest, ReviewError } from '../report/report.js';
import type { ReportBook } from '../report/report-book.js';
import type { SessionLog } from './session-log.js';

export function sessionWorkbench(options: {
  book: ReportBook;
  conversation: Conversation;
  log: SessionLog;
  now?: () => number;
}): Workbench {
  const { book, conversation, log } = options;
  const now = options.now ?? Date.now;

  async function addCell(cell: WorkCell, figures: FigureInput[], ok: boolean, author: Author): Promise<void> {
    await log.append({ kind: 'cell', language: cell.language, code: cell.code, author, ok });
    if (!ok) return;
    const ids: string[] = [];
    for (const figure of figures) {
      const id = await book.saveFigure(figure.png);
      ids.push(id);
      conversation.work.figures.push({ id, title: figure.title, alt: figure.alt });
    }
    conversation.work.cells.push({ ...cell, author, figures: ids, ranAt: now() });
  }

  return {
    addCell,
    async draft(input): Promise<DraftedSection> {
      const report = await book.load();
      const awaiting = report.sections.filter((section) => section.status === 'revision-requested');
      const revises = input.revises ?? (awaiting.length === 1 ? awaiting[0]?.id : undefined);
      const previous = revises ? report.sections.find((section) => section.id === revises) : undefined;
      if (revises && !previous) throw new ReviewError(`There is no section ${revises} to revise.`);
      // A revision builds on the version it replaces: its evidence stays, new cells are added.
      const before = previous ? latest(previous) : undefined;
      const work = before
        ? {
            cells: [
              ...before.cells,
              ...conversation.work.cells.filter((cell) => !before.cells.some((old) => old.code === cell.code)),
            ],
            figures: [...before.figures, ...conversation.work.figures],
          }
        : conversation.work;
      const { section, version } = addDraft(report, {
        title: input.title,
        narrative: input.narrative,
        request: conversation.request ?? '',
        cells: work.cells,
        figures: work.figures,
        at: now(),
        ...(input.checks ? { checks: input.checks } : {}),
        ...(input.stage ? { stage: input.stage } : {}),
        ...(revises ? { revises } : {}),
      });
      await book.save(report);
      conversation.work = { cells: [], figures: [] };
      await log.append({
        kind: 'report_version',
        section: section.id,
        version: version.version,
        title: version.title,
        narrative: version.narrative,
      });
      const figures = [];
      for (const figure of version.figures) {
        const png = await book.figure(figure.id);
        if (png) figures.push({ title: figure.title, alt: figure.alt, png });
      }
      return {
        section: section.id,
        version: version.version,
        title: version.title,
        narrative: version.narrative,
        cells: version.cells,
        figures,
        ...(section.stage ? { stage: section.stage } : {}),
      };
    },
  };
}

type FigureInput = { png: Buffer; title: string; alt: string };
