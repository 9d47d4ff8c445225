/**
 * Golden questions that are answered right only with what the organisation knows about telco_db
 * (telco_data/knowledge/telco_db/): unlike the other cases, their messages do not say which join or
 * which rows, so the knowledge store must put the right piece into the prompts. One uses a defined
 * term (*active customer*), one is answered by a verified query (and the thread must say so), and
 * one words a defined term by a synonym (*attrition rate* for churn rate).
 */
import type { CaseOutcome, EvalCase } from '../eval-case.js';
import { goldenCase, PLAYBOOKS } from './golden-case.js';
import { checkCount, checkRate, checkVerifiedQuery, inAnswer } from './golden-checks.js';
import type { TelcoFacts } from './telco-facts.js';

/** The knowledge piece a case needs in its prompts: a definition or verified query of the telco set, by title. */
export interface NeededKnowledge {
  kind: 'definition' | 'query';
  title: string;
}

/** What each knowledge case needs, by case id: the e2e test checks the prompts carried it. */
export const KNOWLEDGE_NEEDED: Readonly<Record<string, NeededKnowledge>> = {
  'golden-active-customers': { kind: 'definition', title: 'active customer' },
  'golden-verified-payment-method': { kind: 'query', title: 'churn rate by payment method' },
  'golden-attrition-by-contract': { kind: 'definition', title: 'churn rate' },
};

/** One part per value: its churn rate on its own line. */
const rateParts = (rates: Map<string, number>, what: string) => (outcome: CaseOutcome) =>
  [...rates].map(([value, rate]) =>
    checkRate(inAnswer(outcome), { label: value, what: `churn rate for ${what} '${value}'`, expected: rate }),
  );

export function knowledgeCases(facts: TelcoFacts): EvalCase[] {
  const payment = KNOWLEDGE_NEEDED['golden-verified-payment-method']?.title ?? '';
  return [
    goldenCase({
      id: 'golden-active-customers',
      level: 'knowledge',
      concepts: ['Knowledge: definition', 'Active customer'],
      // Which customers count is the definition's to say (churned 'No', tenure at least a month).
      message: 'How many active customers do we have? Answer with the line `Active customers: <count>`.',
      // No playbook covers a head count: the ranking picks none.
      parts: (outcome) => [
        checkCount(inAnswer(outcome), {
          label: 'Active customers',
          name: 'active_customers',
          what: "active customers (user_payments customers with Churn = 'No' and tenure >= 1)",
          expected: facts.activeCustomers,
        }),
      ],
    }),
    goldenCase({
      id: 'golden-verified-payment-method',
      level: 'knowledge',
      concepts: ['Knowledge: verified query', 'Churn rate', 'Payment method'],
      // Kept bare: a format line would dilute the playbook fit below the threshold.
      message: 'What is the churn rate by payment method?',
      playbook: PLAYBOOKS.drivers,
      lookup: true,
      parts: (outcome) => [
        ...rateParts(facts.churnByPaymentMethod, 'payment method')(outcome),
        checkVerifiedQuery(outcome, payment),
      ],
    }),
    goldenCase({
      id: 'golden-attrition-by-contract',
      level: 'knowledge',
      concepts: ['Knowledge: synonym', 'Churn rate', 'Contract'],
      message:
        'Which contract types have the highest attrition rate? Answer with one line per contract type, like ' +
        '`Month-to-month: <rate>` (3 decimals).',
      playbook: PLAYBOOKS.drivers,
      lookup: true,
      parts: rateParts(facts.churnByContract, 'contract'),
    }),
  ];
}
