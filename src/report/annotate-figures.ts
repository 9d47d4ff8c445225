/**
 * How checked figures are shown: an ungrounded one is marked `47.2%⚠` and listed under the text
 * ("⚠ not found in any result: 47.2%"), so a reviewer sees it in Slack, Discord, the console and
 * the exports; in the exports a grounded one links to the cell or query whose output holds it.
 */
import type { FigureCheck } from './report.js';

export const MARK = '⚠';

export interface AnnotateOptions {
  /** Where a grounded figure's result is shown (an anchor), or undefined to leave it unlinked. */
  link?: (source: string) => string | undefined;
}

export function annotateFigures(
  markdown: string,
  checks: readonly FigureCheck[],
  options: AnnotateOptions = {},
): string {
  let text = markdown;
  for (const check of [...checks].sort((left, right) => right.start - left.start)) {
    if (markdown.slice(check.start, check.end) !== check.text) continue; // checks of another text
    if (check.status === 'ungrounded' || check.status === 'ambiguous') {
      text = `${text.slice(0, check.end)}${MARK}${text.slice(check.end)}`;
      continue;
    }
    const href = check.source === undefined ? undefined : options.link?.(check.source);
    if (href && !insideLink(markdown, check.start)) {
      text = `${text.slice(0, check.start)}[${check.text}](${href})${text.slice(check.end)}`;
    }
  }
  const lines = flaggedLines(checks);
  return lines.length === 0 ? text : `${text}\n\n${lines.join('\n')}`;
}

/** The lines that list what is flagged, as the reviewer reads them under the text. */
export function flaggedLines(checks: readonly FigureCheck[]): string[] {
  const unfound = checks.filter((check) => check.status === 'ungrounded').map((check) => check.text);
  const ambiguous = checks.filter((check) => check.status === 'ambiguous').map((check) => check.text);
  return [
    ...(unfound.length > 0 ? [`${MARK} not found in any result: ${unique(unfound).join(', ')}`] : []),
    ...(ambiguous.length > 0 ? [`${MARK} ambiguous decimal mark: ${unique(ambiguous).join(', ')}`] : []),
  ];
}

const unique = (texts: string[]) => [...new Set(texts)];

/** Already inside a Markdown link's text, where a second link would break the first. */
function insideLink(markdown: string, position: number): boolean {
  const open = markdown.lastIndexOf('[', position);
  return open !== -1 && !markdown.slice(open, position).includes(']') && /^[^\]\n]*\]\(/.test(markdown.slice(position));
}
