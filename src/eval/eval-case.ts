/**
 * What `tally eval` measures: cases with known answers (a question, files to share, how to answer
 * the agent's questions and reviews), what a case's thread showed, how it scored, and the summary of
 * a run. Suites (DABench, the telco golden analyses) produce `EvalCase`s; the runner produces
 * `CaseResult`s; the summary and the report read those.
 */
import type { CaseTokens } from './case-accounting.js';

/** How the harness decides on a section the agent drafts: as a reviewer would in the thread. */
export type ReviewStep = 'accept' | 'discard' | { revise: string };

export interface EvalCase {
  /** Unique in its suite, e.g. `dabench-5` or `golden-churn-by-contract`. */
  id: string;
  suite: string;
  /** A grouping for the summary: DABench's level (easy, medium, hard), or the golden case's kind. */
  level: string;
  /** Topics for the summary (DABench's concepts, e.g. `Correlation Analysis`). */
  concepts: string[];
  /** What the user writes in the thread. */
  message: string;
  /** Files shared with the message, as a person shares them: they land under /inputs/uploads/. */
  files: Array<{ name: string; path: string }>;
  /** Replies to the agent's clarifying questions, in order; default "Use your best judgement." */
  answers?: string[];
  /** Decisions on the sections the agent drafts, in order; default accept. */
  reviews?: ReviewStep[];
  /**
   * The playbook (file name, e.g. `table-consistency-audit.md`) the agent should follow, or null when
   * it should follow none; absent when the case expects nothing. Counted in the run's playbook choice,
   * which is not a part: golden cases also score it as a part, DABench cases (null) do not.
   */
  playbook?: string | null;
  /**
   * The playbook that fits the request, for the ranking's calibration, where the agent should follow another
   * (a one-step lookup fits a playbook but is given none: only a request triage finds multi-step is).
   */
  rankedPlaybook?: string | null;
  /** Scores what the thread showed, one part per thing checked. */
  score(outcome: CaseOutcome): PartScore[];
  /** DABench only: scores the answer as the benchmark's published script does, beside `score`. */
  scoreAsPublished?(answer: string): PublishedScore;
}

/** What a case's thread showed, as the harness read it from the posts. */
export interface CaseOutcome {
  /** The agent's answers: its text posts, in order, joined by blank lines. */
  answer: string;
  /** Markdown of the sections accepted into the report, in order. */
  sections: string[];
  /** The clarifying questions the agent asked. */
  questions: string[];
  /** The playbook the thread was told it follows (its file name), if any. */
  playbook?: string;
  /** The agent said the data cannot answer the request. */
  declined: boolean;
  /** Every post of the thread as text, for the report. */
  transcript: string;
}

export interface PartScore {
  /** What was checked, e.g. the DABench answer name `mean_fare`, or `playbook`. */
  name: string;
  correct: boolean;
  expected: string;
  /** What the thread said, when something was found. */
  got?: string;
  /** Why it failed, in words (a checker's message). */
  why?: string;
}

/**
 * A DABench case scored as InfiAgent's eval_closed_form.py scores it (dabench-published-score.ts): on
 * the answer text alone, whatever the case's status.
 */
export interface PublishedScore {
  /** The answer was not empty: the published script leaves a question without a response out of every accuracy. */
  answered: boolean;
  /** Every part correct (also when the label names none, as Python's all([]) is); false when not answered. */
  correct: boolean;
  /** One per distinct labelled name, with its last labelled value; none when not answered. */
  parts: PartScore[];
}

/**
 * The figures of what a case's thread posted (its answers and section drafts), as tally checked them
 * against the thread's tool results (src/agent/grounding): summed over the posted texts, each text as
 * it was finally posted (after any review note). A case that posted no figures has `figures` 0.
 */
export interface CaseGrounding {
  /** Figures stated (numbers a reader takes as results; years, counts in prose and the like are not). */
  figures: number;
  /** Found in a tool result, or said to be a difference, ratio or share of two that were. */
  grounded: number;
  /** As written, in order, once per posted text that stated them unfound (or with a comma decimal mark). */
  ungrounded: string[];
}

/** How a case ended: it ran to its end, a budget stopped it, or something broke. */
export type CaseStatus = 'done' | 'time_budget' | 'token_budget' | 'error';

export interface CaseResult {
  id: string;
  suite: string;
  level: string;
  concepts: string[];
  status: CaseStatus;
  /** All parts correct (and status done). */
  correct: boolean;
  parts: PartScore[];
  answer: string;
  /** Tool calls the agent made (triage aside), and how many of them failed (and were repaired or given up). */
  toolCalls: number;
  failedToolCalls: number;
  tokens: CaseTokens;
  /** Model requests and the time spent waiting for them. */
  modelCalls: number;
  modelMs: number;
  wallMs: number;
  /** Money, when a price table names the model (TALLY_MODEL_PRICES). */
  costUsd?: number;
  /** What went wrong, for status `error` (and the budget that ran out, for the budget statuses). */
  error?: string;
  /** The posted figures as checked; absent in results written before `tally eval` measured them. */
  grounding?: CaseGrounding;
  /** DABench cases: the answer scored as published; absent in other suites and in older results. */
  published?: PublishedScore;
  /** The playbook the thread followed (its file name); absent when it followed none. */
  playbook?: string;
  /**
   * The playbook the case expected (see {@link EvalCase.playbook}); absent when it expected nothing,
   * and in results written before `tally eval` recorded the playbook choice.
   */
  expectedPlaybook?: string | null;
  transcript: string;
}

/** Accuracy three ways, as the DABench paper reports it. */
export interface Accuracy {
  cases: number;
  /** Cases with every part correct / cases. */
  byQuestion: number;
  /** Correct parts / all parts. */
  bySubQuestion: number;
  /** Mean over cases of (correct parts / parts). */
  proportional: number;
}

/**
 * Accuracy three ways as eval_closed_form.py computes it: over the cases with a response only, each
 * rounded to 4 places as the script rounds it.
 */
export interface PublishedAccuracy {
  /** Cases with a published score. */
  cases: number;
  /** Of those, the ones with a response: the questions the published script scores. */
  scored: number;
  byQuestion: number;
  bySubQuestion: number;
  proportional: number;
}

export interface EvalSummary {
  suite: string;
  model: string;
  /** ISO 8601. */
  startedAt: string;
  wallMs: number;
  overall: Accuracy;
  byLevel: Record<string, Accuracy>;
  byConcept: Record<string, Accuracy>;
  /** DABench: accuracy as published; absent for other suites and in summaries written before it was scored. */
  published?: PublishedAccuracy;
  statuses: Record<CaseStatus, number>;
  tokens: CaseTokens;
  costUsd?: number;
  /** Per case, medians: wall time, model time, tokens. */
  perCase: { wallMsP50: number; modelMsP50: number; tokensP50: number };
  /** The posted figures of every case; absent in summaries written before `tally eval` measured them. */
  grounding?: EvalGrounding;
  /**
   * The playbooks followed, scored over the cases that expected one or none; absent when no case
   * expected anything, and in summaries written before `tally eval` recorded it.
   */
  playbookChoice?: EvalPlaybookChoice;
}

/**
 * Playbook choice scored as retrieval. A case is a true positive when it should follow a playbook
 * and followed that one; `wrong` when it followed another; a false negative when it followed none; a
 * false positive when it followed one where none fits; a true negative when neither.
 */
export interface EvalPlaybookChoice {
  /** Cases scored. */
  cases: number;
  /** Right playbook followed / any playbook followed, 0–1; 1 when no case followed one. */
  precision: number;
  /** Right playbook followed / cases that should follow one, 0–1; 1 when no case should. */
  recall: number;
  truePositives: number;
  /** A playbook followed where none fits. */
  falsePositives: number;
  /** No playbook followed where one fits. */
  falseNegatives: number;
  /** Another playbook followed than the one that fits. */
  wrong: number;
  trueNegatives: number;
}

/** The posted figures of a run, summed over its cases (see {@link CaseGrounding}). */
export interface EvalGrounding {
  figures: number;
  grounded: number;
  /** grounded / figures, 0–1; 1 when no figures were posted. */
  share: number;
}
