/**
 * The check on a text the agent hands in (an answer, a section draft): its figures are matched
 * against the thread's results. The first time figures are ungrounded the model gets a review note
 * and redoes the text; what is still ungrounded after that is posted marked for the reviewer.
 */

import { annotateFigures } from '../../report/annotate-figures.js';
import type { Conversation } from '../conversation.js';
import type { LogEvent } from '../log-event.js';
import { type FigureCheck, groundFigures } from './ground-figures.js';
import { evidenceOf } from './thread-evidence.js';

export type FigureVerdict =
  /** Tell the model, and let it redo the text. */
  | { kind: 'redo'; note: string }
  /** Post it: `markdown` carries the marks, `checks` what was found. */
  | { kind: 'post'; markdown: string; checks: FigureCheck[] };

export interface FigureReviewOptions {
  conversation: Conversation;
  /** The thread's `grounding` setting. */
  enabled: boolean;
  /** Relative tolerance for approximate figures. */
  approx: number;
  log: (event: LogEvent) => Promise<void>;
}

export type FigureReview = (markdown: string, what: 'answer' | 'section') => Promise<FigureVerdict>;

export function figureReview(options: FigureReviewOptions): FigureReview {
  const { conversation } = options;
  return async (markdown, what) => {
    if (!options.enabled) return { kind: 'post', markdown, checks: [] };
    const checks = groundFigures(markdown, evidenceOf(conversation), {
      given: conversation.given ?? [],
      parameters: conversation.parameters ?? [],
      approx: options.approx,
    });
    const flagged = checks.filter((check) => check.status === 'ungrounded' || check.status === 'ambiguous');
    const noted = flagged.length > 0 && !conversation.figuresNoted;
    await options.log({
      kind: 'grounding',
      what,
      outcome: noted ? 'noted' : 'posted',
      figures: checks.length,
      grounded: checks.length - flagged.length,
      ungrounded: flagged.map((check) => check.text),
    });
    if (noted) {
      conversation.figuresNoted = true;
      return { kind: 'redo', note: reviewNote(markdown, flagged, what) };
    }
    delete conversation.figuresNoted;
    return { kind: 'post', markdown: annotateFigures(markdown, checks), checks };
  };
}

function reviewNote(markdown: string, flagged: FigureCheck[], what: 'answer' | 'section'): string {
  const listed = flagged
    .map((check) => {
      const quote = markdown
        .slice(Math.max(0, check.start - 40), check.end + 20)
        .replace(/\s+/g, ' ')
        .trim();
      const why = check.status === 'ambiguous' ? ' (a comma decimal mark: write it with a point)' : '';
      return `- ${check.text}${why}, in "…${quote}…"`;
    })
    .join('\n');
  const again = what === 'section' ? 'call draft_section again' : 'give the answer again';
  return [
    `Review note from tally, not from the user: ${what === 'section' ? 'the section was not posted. These' : 'these'} figures appear in no tool result of this thread:`,
    listed,
    `Check each against the results (run what is needed), correct or remove it, then ${again}. A figure computed from two others counts when the sentence says how (a difference, a ratio, a share); an approximate one can say "about".`,
  ].join('\n');
}
