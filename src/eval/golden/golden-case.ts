/** The shape every golden case shares: suite `golden`, no files, and the playbook scored as a part. */
import type { CaseOutcome, EvalCase, PartScore, ReviewStep } from '../eval-case.js';
import { checkPlaybook } from './golden-checks.js';

export interface GoldenCaseOptions {
  /** `golden-<what>`. */
  id: string;
  /** The kind of case: `consistency`, `rates`, `model`, `clarify`, `scope` or `review`. */
  level: string;
  concepts: string[];
  message: string;
  /** The playbook the request should follow; omitted for a request that should follow none. */
  playbook?: string;
  answers?: string[];
  reviews?: ReviewStep[];
  /** The parts other than the playbook. */
  parts(outcome: CaseOutcome): PartScore[];
}

export function goldenCase(options: GoldenCaseOptions): EvalCase {
  const { parts, ...rest } = options;
  return {
    ...rest,
    suite: 'golden',
    files: [],
    score: (outcome) => [...parts(outcome), checkPlaybook(outcome, options.playbook)],
  };
}
