/** The shape every golden case shares: suite `golden`, no files, and the playbook (or none) scored as a part. */
import type { CaseOutcome, EvalCase, PartScore, ReviewStep } from '../eval-case.js';
import { checkCount, checkPlaybook, type Source } from './golden-checks.js';
import type { TelcoFacts } from './telco-facts.js';

export interface GoldenCaseOptions {
  /** `golden-<what>`. */
  id: string;
  /** The kind of case: `consistency`, `rates`, `model`, `clarify`, `scope`, `review` or `knowledge`. */
  level: string;
  concepts: string[];
  message: string;
  /** The playbook that fits the request; omitted for a request that fits none. */
  playbook?: string;
  /** A one-step lookup: it follows no playbook (triage finds it clear, so no method is given), though one fits. */
  lookup?: true;
  answers?: string[];
  reviews?: ReviewStep[];
  /** The parts other than the playbook. */
  parts(outcome: CaseOutcome): PartScore[];
}

export function goldenCase(options: GoldenCaseOptions): EvalCase {
  const { parts, lookup: _lookup, ...rest } = options;
  return {
    ...rest,
    suite: 'golden',
    files: [],
    playbook: options.lookup ? null : (options.playbook ?? null),
    ...(options.lookup ? { rankedPlaybook: options.playbook ?? null } : {}),
    score: (outcome) => [...parts(outcome), checkPlaybook(outcome, options.lookup ? undefined : options.playbook)],
  };
}

/** The playbooks golden cases expect (files in prompts/playbooks/). */
export const PLAYBOOKS = {
  audit: 'table-consistency-audit.md',
  drivers: 'churn-drivers.md',
  prediction: 'churn-prediction.md',
} as const;

/** `Missing demographics: <count>` read from `text`: asked by the audit and by the revised audit section. */
export function checkMissingDemographics(source: Source, facts: TelcoFacts): PartScore {
  return checkCount(source, {
    label: 'Missing demographics',
    name: 'missing',
    what: 'customers without demographics',
    expected: facts.missingDemographics.count,
  });
}
