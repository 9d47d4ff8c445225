/** Every export format of a report, for a single download or upload. */
import { exportHtml } from './export-html.js';
import { exportMarkdown } from './export-markdown.js';
import { exportNotebook } from './export-notebook.js';
import type { ReportDocument, ReportFile } from './report-document.js';

/** `report.md` and its `figures/…png`, then `report.html`, then `report.ipynb`. */
export function exportReport(doc: ReportDocument): ReportFile[] {
  return [...exportMarkdown(doc), exportHtml(doc), exportNotebook(doc)];
}
