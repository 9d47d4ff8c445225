/**
 * A thread's report in the store: the report itself (`report:<thread>`) and its figures' PNGs
 * (`figure:<thread>:<id>`, base64), so decisions and drafts survive a restart and any replica can
 * export. Read-modify-write happens under the thread's lock (the session router holds it).
 */
import type { Store } from '../ports/store.js';
import { acceptedSections, emptyReport, latest, type Report } from './report.js';
import type { DocumentFigure, ReportDocument } from './report-document.js';

export const reportKey = (threadKey: string) => `report:${threadKey}`;
const figureKey = (threadKey: string, id: string) => `figure:${threadKey}:${id}`;
const figureCounter = (threadKey: string) => `figures:${threadKey}`;

/** What the report keeps of a thread: names, and prefixes of names (for the eraser). */
export const reportNames = (threadKey: string) => ({
  names: [reportKey(threadKey), figureCounter(threadKey)],
  prefixes: [`figure:${threadKey}:`],
});

export class ReportBook {
  constructor(
    private readonly store: Store,
    readonly threadKey: string,
    private readonly now: () => number = Date.now,
  ) {}

  async load(): Promise<Report> {
    return (await this.store.get<Report>(reportKey(this.threadKey))) ?? emptyReport(this.threadKey, this.now());
  }

  save(report: Report): Promise<void> {
    return this.store.set(reportKey(this.threadKey), report);
  }

  /** Keeps a chart's PNG; returns its id (`f1`, `f2`, … per thread). */
  async saveFigure(png: Buffer): Promise<string> {
    const id = `f${await this.store.append(figureCounter(this.threadKey), 1)}`;
    await this.store.set(figureKey(this.threadKey, id), png.toString('base64'));
    return id;
  }

  async figure(id: string): Promise<Buffer | undefined> {
    const data = await this.store.get<string>(figureKey(this.threadKey, id));
    return data === undefined ? undefined : Buffer.from(data, 'base64');
  }

  /** The accepted sections in report order, figures resolved, ready for the exporters. */
  async document(databases: ReportDocument['databases']): Promise<ReportDocument> {
    const report = await this.load();
    const sections = [];
    for (const section of acceptedSections(report)) {
      const version = latest(section);
      const accepted = section.decisions.findLast((decision) => decision.action === 'accept');
      const figures: DocumentFigure[] = [];
      for (const figure of version.figures) {
        const png = await this.figure(figure.id);
        if (!png) continue; // kept with the report; a missing PNG is left out rather than failing the export
        const cell = version.cells.findIndex((candidate) => candidate.figures.includes(figure.id));
        figures.push({ ...figure, png, ...(cell >= 0 ? { cell } : {}) });
      }
      sections.push({
        id: section.id,
        ...(section.stage ? { stage: section.stage } : {}),
        title: version.title,
        narrative: version.narrative,
        version: version.version,
        request: section.request,
        cells: version.cells,
        figures,
        acceptedBy: accepted?.by ?? '',
        acceptedAt: accepted?.at ?? 0,
        feedback: section.decisions.flatMap((decision) => (decision.feedback ? [decision.feedback] : [])),
        ...(version.checks ? { checks: version.checks } : {}),
      });
    }
    const first = report.sections[0]?.request;
    return {
      title: first ? `Analysis: ${first.length > 90 ? `${first.slice(0, 89)}…` : first}` : 'Analysis report',
      threadKey: this.threadKey,
      createdAt: report.createdAt,
      exportedAt: this.now(),
      databases,
      sections,
    };
  }
}
