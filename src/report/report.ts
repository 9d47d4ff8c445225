/**
 * The analysis report of a thread: an ordered list of sections, each with versions and a review
 * status. A section moves `draft -> accepted | revision-requested -> draft … | discarded`; only
 * accepted sections enter the report, in the order they were accepted. Pure data and functions:
 * the report book (report-book.ts) keeps it in the store.
 */

export type SectionStatus = 'draft' | 'accepted' | 'revision-requested' | 'discarded';
export type ReviewAction = 'accept' | 'revise' | 'discard';
/** Who wrote a cell: the model, or a person (their own code block, or an edit before it ran). */
export type Author = 'model' | 'human';

/** One step of work behind a section, with its provenance. */
export interface Cell {
  language: 'sql' | 'python';
  code: string;
  author: Author;
  /** SQL: the database it ran on. */
  database?: string;
  /** SQL loaded into the kernel: the DataFrame's name (absent for a preview query). */
  dataframe?: string;
  /** SQL: rows returned or loaded. */
  rows?: number;
  /** A short text of what the cell printed or returned (for the notebook and training data). */
  output?: string;
  /** Figures this cell drew (ids, see Figure). */
  figures: string[];
  ranAt: number;
  /** The tool call (or a person's cell) that ran it: a checked figure names it as its source. */
  call?: string;
  /** SQL: the verified query of the knowledge store it ran, by name. */
  verifiedQuery?: string;
}

/** A figure (number) of a narrative as checked against the thread's results (src/agent/grounding). */
export interface FigureCheck {
  /** As written: `44.9%`, `1,879`. */
  text: string;
  start: number;
  end: number;
  status: 'grounded' | 'derived' | 'ungrounded' | 'ambiguous';
  /** Grounded: the call whose result holds it. */
  source?: string;
}

/** A chart; its PNG is kept in the store under its id, not in the report. */
export interface Figure {
  id: string;
  title: string;
  alt: string;
}

export interface SectionVersion {
  version: number;
  title: string;
  /** Markdown. */
  narrative: string;
  cells: Cell[];
  figures: Figure[];
  /** The reviewer's feedback this version answers (versions after the first). */
  feedback?: string;
  createdAt: number;
  /** The narrative's figures as checked against the thread's results when it was drafted. */
  checks?: FigureCheck[];
}

export interface Decision {
  action: ReviewAction;
  version: number;
  by: string;
  at: number;
  feedback?: string;
}

export interface Section {
  /** `s1`, `s2`, … in drafting order. */
  id: string;
  /** The analysis stage, e.g. data overview, data quality, exploration, drivers, model, conclusions. */
  stage?: string;
  /** The user's request the section answers. */
  request: string;
  status: SectionStatus;
  versions: SectionVersion[];
  decisions: Decision[];
}

export interface Report {
  threadKey: string;
  createdAt: number;
  sections: Section[];
  /** Ids of accepted sections, in the order they were accepted: the report's order. */
  accepted: string[];
}

export interface DraftInput {
  title: string;
  narrative: string;
  stage?: string;
  request: string;
  cells: Cell[];
  figures: Figure[];
  /** Revise this section (it must await a revision or still be a draft) instead of adding one. */
  revises?: string;
  at: number;
  checks?: FigureCheck[];
}

export class ReviewError extends Error {
  override readonly name = 'ReviewError';
}

export const emptyReport = (threadKey: string, now: number): Report => ({
  threadKey,
  createdAt: now,
  sections: [],
  accepted: [],
});

export const latest = (section: Section): SectionVersion => {
  const version = section.versions.at(-1);
  if (!version) throw new ReviewError(`section ${section.id} has no versions`);
  return version;
};

export function findSection(report: Report, id: string): Section {
  const section = report.sections.find((candidate) => candidate.id === id);
  if (!section) {
    const known = report.sections.map((candidate) => candidate.id).join(', ') || 'none yet';
    throw new ReviewError(`There is no section ${id} (sections: ${known}).`);
  }
  return section;
}

/** Records a draft: a new section, or a new version of the section being revised. */
export function addDraft(report: Report, input: DraftInput): { section: Section; version: SectionVersion } {
  const revised = input.revises ? findSection(report, input.revises) : undefined;
  if (revised && revised.status !== 'revision-requested' && revised.status !== 'draft') {
    throw new ReviewError(
      `Section ${revised.id} is ${revised.status}; only a draft or a section awaiting revision can get a new version.`,
    );
  }
  const section: Section = revised ?? {
    id: `s${report.sections.length + 1}`,
    request: input.request,
    status: 'draft',
    versions: [],
    decisions: [],
    ...(input.stage ? { stage: input.stage } : {}),
  };
  const previous = section.versions.at(-1);
  const feedback = previous
    ? section.decisions.findLast((decision) => decision.action === 'revise')?.feedback
    : undefined;
  const version: SectionVersion = {
    version: section.versions.length + 1,
    title: input.title,
    narrative: input.narrative,
    cells: input.cells,
    figures: input.figures,
    createdAt: input.at,
    ...(feedback ? { feedback } : {}),
    ...(input.checks ? { checks: input.checks } : {}),
  };
  section.versions.push(version);
  section.status = 'draft';
  if (!revised) report.sections.push(section);
  return { section, version };
}

export interface DecisionInput {
  action: ReviewAction;
  by: string;
  at: number;
  /** The version the reviewer saw; a decision on an older version is refused. Default: the latest. */
  version?: number;
  feedback?: string;
}

/**
 * Applies a review decision. Only a draft can be accepted or sent back for revision; a draft or a
 * section awaiting revision can be discarded. Anything else throws ReviewError with a message for
 * the thread.
 */
export function decide(report: Report, sectionId: string, input: DecisionInput): Section {
  const section = findSection(report, sectionId);
  const current = latest(section);
  if (input.version !== undefined && input.version !== current.version) {
    throw new ReviewError(
      `Version ${input.version} of section ${section.id} was replaced by version ${current.version}; decide on that one.`,
    );
  }
  const allowed = section.status === 'draft' || (section.status === 'revision-requested' && input.action === 'discard');
  if (!allowed) {
    throw new ReviewError(`Section ${section.id} ('${current.title}') is already ${section.status}.`);
  }
  section.decisions.push({
    action: input.action,
    version: current.version,
    by: input.by,
    at: input.at,
    ...(input.feedback ? { feedback: input.feedback } : {}),
  });
  section.status = ({ accept: 'accepted', revise: 'revision-requested', discard: 'discarded' } as const)[input.action];
  if (input.action === 'accept') report.accepted.push(section.id);
  return section;
}

/** The accepted sections in report order. */
export function acceptedSections(report: Report): Section[] {
  return report.accepted.map((id) => findSection(report, id));
}

/** Who may decide: the thread's owner or a configured reviewer. */
export function mayReview(userId: string, owner: string, reviewers: readonly string[]): boolean {
  return userId === owner || reviewers.includes(userId);
}
