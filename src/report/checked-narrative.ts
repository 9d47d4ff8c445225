/**
 * A section's narrative as the exports show it: figures the check could not find in any result are
 * marked (`47.2%⚠`, listed under the text), and, where the export shows cells, each grounded figure
 * links to the cell or query whose output holds it.
 */
import { annotateFigures } from './annotate-figures.js';
import type { DocumentSection, ReportDocument } from './report-document.js';

/** The anchor of a section's cell in the HTML page and the notebook: `s1-cell-2`. */
export const cellAnchor = (sectionId: string, index: number) => `${sectionId}-cell-${index + 1}`;

/** Every exported cell that ran as a tool call, by call id: where a figure's source is shown. */
export function cellAnchors(doc: ReportDocument): Map<string, string> {
  const anchors = new Map<string, string>();
  for (const section of doc.sections) {
    section.cells.forEach((cell, index) => {
      if (cell.call && !anchors.has(cell.call)) anchors.set(cell.call, cellAnchor(section.id, index));
    });
  }
  return anchors;
}

/** The narrative with its checked figures marked, and linked to their cells when `anchors` are given. */
export function checkedNarrative(section: DocumentSection, anchors?: Map<string, string>): string {
  if (!section.checks?.length) return section.narrative;
  return annotateFigures(section.narrative, section.checks, {
    ...(anchors ? { link: (source: string) => (anchors.has(source) ? `#${anchors.get(source)}` : undefined) } : {}),
  });
}

/** The grounded figures of the document whose result is the cell with this anchor. */
export function figuresFrom(doc: ReportDocument, anchors: Map<string, string>, anchor: string): string[] {
  return doc.sections.flatMap((section) =>
    (section.checks ?? []).flatMap((check) =>
      check.source !== undefined && anchors.get(check.source) === anchor ? [check.text] : [],
    ),
  );
}
