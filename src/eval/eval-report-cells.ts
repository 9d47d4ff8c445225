/**
 * The small pieces the `tally eval` HTML page's tables share: whether a case failed, a number cell, a yes or no,
 * a case's id linked to its failed-case section, its parts correct and its share of figures grounded. Every piece
 * of text is escaped.
 */

import { escapeHtml } from '../report/export-html.js';
import type { CaseResult, PartScore } from './eval-case.js';
import { formatGrounded } from './format-eval-numbers.js';

/** A case failed when a part was wrong or it did not run to its end. */
export function caseFailed(result: CaseResult): boolean {
  return !result.correct || result.status !== 'done';
}

/** `1/2`: the parts correct of a case, or of its published score. */
export function partsCorrect(result: { parts: PartScore[] }): string {
  return `${result.parts.filter((part) => part.correct).length}/${result.parts.length}`;
}

export function caseAnchor(id: string): string {
  return escapeHtml(`case-${id}`);
}

export function yesNo(correct: boolean): string {
  return correct ? '<span class="yes">yes</span>' : '<span class="no">no</span>';
}

export function numberCell(text: string): string {
  return `<td class="number">${escapeHtml(text)}</td>`;
}

/** The case's id, linked to its section further down the page when it failed. */
export function caseId(result: CaseResult): string {
  return caseFailed(result)
    ? `<a href="#${caseAnchor(result.id)}">${escapeHtml(result.id)}</a>`
    : escapeHtml(result.id);
}

/** A case's share of figures grounded; a dash for a result written before eval measured it. */
export function grounded(result: CaseResult): string {
  return result.grounding ? formatGrounded(result.grounding) : '—';
}
