/**
 * Whether tally follows a playbook only when one fits: the calibration set of the ranking threshold
 * (src/agent/playbooks.ts; the measurement is in the header of src/agent/playbook-ranking.ts) and the
 * precision and recall `tally eval` reports.
 *
 * The set holds requests that should follow a named playbook (the golden cases that name one, each
 * playbook's own question, and short requests in the words people use) and requests that should
 * follow none: every DABench dev question (other people's CSV files; the shipped playbooks are
 * methods for telco_db), the golden case that must be declined, and telco questions no shipped
 * playbook covers (lookups, sums of revenue, what-ifs: no audit, churn driver, churn model,
 * segmentation or overview is asked for).
 */
import type { Playbook } from '../agent/playbooks.js';
import { type DabenchQuestion, dabenchMessage } from './dabench-suite.js';
import type { EvalCase, EvalPlaybookChoice } from './eval-case.js';

/** One request and the playbook it should follow. */
export interface PlaybookChoiceCase {
  /** `golden-…`, `ask-<file>`, `request-<n>`, `telco-<n>` or `dabench-<id>`. */
  id: string;
  /** The text the ranking sees. */
  request: string;
  /** The playbook's file name, or null when the request should follow none. */
  expected: string | null;
}

/** Short requests in the words people use, and the playbook each should follow. */
export const PLAYBOOK_REQUESTS = [
  ['Are the tables consistent?', 'table-consistency-audit.md'],
  ['Check whether customer ids match across the four tables', 'table-consistency-audit.md'],
  ['Find duplicate or missing rows', 'table-consistency-audit.md'],
  ['Are there blank values or NULLs in the payments table?', 'table-consistency-audit.md'],
  ['Audit data quality of the telco_db tables', 'table-consistency-audit.md'],
  ['Which factors drive churn?', 'churn-drivers.md'],
  ['Is churn significantly higher for fiber optic customers?', 'churn-drivers.md'],
  ['Do seniors churn more than others, and is it significant?', 'churn-drivers.md'],
  ['What distinguishes customers who leave from those who stay?', 'churn-drivers.md'],
  ['Why do customers leave?', 'churn-drivers.md'],
  ['Which contract types churn most, with a chart?', 'churn-drivers.md'],
  ['Group customers into segments by usage and spend', 'customer-segmentation.md'],
  ['Cluster the customers', 'customer-segmentation.md'],
  ['Which customer types exist?', 'customer-segmentation.md'],
  ['Segment our customer base into personas', 'customer-segmentation.md'],
  ['Build a model that predicts which customers will churn', 'churn-prediction.md'],
  ['How well can we predict churn on the new customers? report AUC', 'churn-prediction.md'],
  ['Which customers are most at risk of leaving next month? score them', 'churn-prediction.md'],
  ['Give me an overview of the data', 'eda-overview.md'],
  ['Describe the tables and their columns', 'eda-overview.md'],
] as const;

/**
 * Questions on telco_db that no shipped playbook covers: each was checked against the playbooks'
 * requirements. Several use the playbooks' words (customers, contract, fiber optic, churned, tables)
 * without asking for what a playbook does, which is what makes them worth holding out.
 */
export const UNCOVERED_TELCO_REQUESTS = [
  'How much monthly revenue do we make from customers on two-year contracts?',
  'List the 10 customers with the highest total charges.',
  'Which services does customer 7590-VHVEG subscribe to?',
  'How many customers pay by bank transfer?',
  'What is the average monthly charge of fiber optic customers?',
  'If we raised every monthly charge by 5%, how much more would we bill in a year?',
  'Export the senior citizens who stream TV as a CSV file.',
  'Draw a pie chart of revenue by payment method.',
  'How many customers have both phone service and multiple lines?',
  'What share of customers use paperless billing?',
  'Write a SQL query that joins user_services to user_payments on customerID.',
  'What is the gender split of our customers?',
  'How much monthly revenue did we lose from the customers who churned?',
  'Which internet service brings in the most money per month?',
  'What is the longest tenure of any customer, in years?',
  'Rank the payment methods by their average total charges.',
] as const;

/** What the calibration set is built from. */
export interface PlaybookChoiceSources {
  /** The golden cases (`loadGoldenCases()`). */
  golden: EvalCase[];
  /** The DABench questions (`loadDabench()`). */
  dabench: DabenchQuestion[];
  /** The playbooks whose `ask` (the starter prompt, and a schedule's request) must follow them. */
  playbooks?: Playbook[];
}

/**
 * The calibration set: golden cases (their message; a golden case without a playbook expects none),
 * the playbooks' own questions, the short requests, the uncovered telco questions and the DABench
 * questions as `tally eval` sends them, with the note the session adds for the shared CSV.
 */
export function playbookChoiceCases(sources: PlaybookChoiceSources): PlaybookChoiceCase[] {
  return [
    ...sources.golden.map((evalCase) => ({
      id: evalCase.id,
      request: clarified(evalCase.message, evalCase.answers?.[0]),
      expected: (evalCase.rankedPlaybook === undefined ? evalCase.playbook : evalCase.rankedPlaybook) ?? null,
    })),
    ...(sources.playbooks ?? []).flatMap((playbook) =>
      playbook.ask ? [{ id: `ask-${playbook.file}`, request: playbook.ask, expected: playbook.file }] : [],
    ),
    ...PLAYBOOK_REQUESTS.map(([request, expected], index) => ({ id: `request-${index + 1}`, request, expected })),
    ...UNCOVERED_TELCO_REQUESTS.map((request, index) => ({ id: `telco-${index + 1}`, request, expected: null })),
    ...sources.dabench.map((item) => ({
      id: `dabench-${item.id}`,
      request: `${dabenchMessage(item)}\n\n${sharedFileNote(item.file_name)}`,
      expected: null,
    })),
  ];
}

/**
 * A case that answers a clarifying question is ranked after the answer, on the request with the
 * answer appended as the agent writes it (src/agent/agent.ts); the question is the model's, so a
 * neutral one stands in.
 */
function clarified(message: string, answer: string | undefined): string {
  return answer === undefined ? message : `${message}\n\n(Asked "What do you mean?", the user answered: ${answer})`;
}

/**
 * The note the session appends to a message that shares a file (src/sessions/message-turn.ts); the
 * ranking sees it. The size is fixed here: it is one token among many and never a playbook's word.
 */
function sharedFileNote(file: string): string {
  return `[Shared files, readable in the kernel: /inputs/uploads/${file} (CSV, 0.10 MB)]`;
}

/** The playbook a request should follow and the one it followed; null for none. */
export interface PlaybookChoice {
  expected: string | null;
  chosen: string | null;
}

/** Scores the choices (see {@link EvalPlaybookChoice}). */
export function scorePlaybookChoice(choices: PlaybookChoice[]): EvalPlaybookChoice {
  const count = (test: (choice: PlaybookChoice) => boolean) => choices.filter(test).length;
  const truePositives = count(({ expected, chosen }) => expected !== null && chosen === expected);
  const wrong = count(({ expected, chosen }) => expected !== null && chosen !== null && chosen !== expected);
  const falseNegatives = count(({ expected, chosen }) => expected !== null && chosen === null);
  const falsePositives = count(({ expected, chosen }) => expected === null && chosen !== null);
  const chosen = truePositives + wrong + falsePositives;
  const expected = truePositives + wrong + falseNegatives;
  return {
    cases: choices.length,
    precision: chosen === 0 ? 1 : truePositives / chosen,
    recall: expected === 0 ? 1 : truePositives / expected,
    truePositives,
    falsePositives,
    falseNegatives,
    wrong,
    trueNegatives: choices.length - chosen - falseNegatives,
  };
}
