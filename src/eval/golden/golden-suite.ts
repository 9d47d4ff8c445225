/**
 * The telco golden analyses: questions on the demo telco_db whose answers are computed from the
 * generator's own rows (golden/telco-facts.ts), never typed in. They cover the damage (row counts,
 * missing and orphan keys, blanks versus NULLs), churn rates, a churn model's test ROC AUC, a request
 * that needs a clarifying question, one that must be declined, a reviewed section sent back for
 * revision, and three questions answered right only with the organisation's knowledge (a defined
 * term, a verified query, a synonym). Each names the playbook it should follow, scored as a part. See eval/golden/README.md.
 */
import type { EvalCase } from '../eval-case.js';
import { consistencyCases } from './consistency-cases.js';
import { dialogueCases } from './dialogue-cases.js';
import { knowledgeCases } from './knowledge-cases.js';
import { modelCase } from './model-case.js';
import { rateCases } from './rate-cases.js';
import { computeTelcoFacts, type TelcoFacts } from './telco-facts.js';

/**
 * The golden cases, expectations computed for telco_db as `loadTelco` builds it with its defaults
 * (seed 42, 7,043 customers, default damage); pass `facts` to check against other data.
 */
export function loadGoldenCases(facts: TelcoFacts = computeTelcoFacts()): EvalCase[] {
  return [
    ...consistencyCases(facts),
    ...rateCases(facts),
    modelCase(facts),
    ...dialogueCases(facts),
    ...knowledgeCases(facts),
  ];
}
