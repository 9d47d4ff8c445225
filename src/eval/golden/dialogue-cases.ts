/**
 * Golden cases about the conversation as much as the number: a request too vague to answer without
 * asking first (the case file holds the reply), one the data cannot answer (it must be declined),
 * and a reviewed report section sent back once with a scripted revision request, whose accepted
 * version must carry both numbers.
 */
import type { EvalCase } from '../eval-case.js';
import { checkMissingDemographics, goldenCase, PLAYBOOKS } from './golden-case.js';
import { checkAsked, checkCount, checkDeclined, checkRate, checkWord, inAnswer, inSections } from './golden-checks.js';
import type { TelcoFacts } from './telco-facts.js';

/** The value with the highest rate. */
function top(rates: Map<string, number>): [string, number] {
  return [...rates].reduce((best, entry) => (entry[1] > best[1] ? entry : best));
}

export function dialogueCases(facts: TelcoFacts): EvalCase[] {
  const [method, rate] = top(facts.churnByPaymentMethod);
  return [
    goldenCase({
      id: 'golden-clarify-top-churners',
      level: 'clarify',
      concepts: ['Clarifying question', 'Churn rate', 'Payment method'],
      // Which grouping? Which part? Without asking, any answer is a guess.
      message: 'Which customers churn the most?',
      answers: [
        'Group them by payment method, on the train tables: customers in user_payments joined to user_churn on ' +
          "customerID, blank PaymentMethod left out; churn rate = share with Churn = 'Yes'. Answer with the line " +
          '`Top: <payment method> (<churn rate to 3 decimals>)`.',
      ],
      playbook: PLAYBOOKS.drivers,
      parts: (outcome) => [
        checkAsked(outcome),
        checkWord(inAnswer(outcome), {
          label: 'Top',
          name: 'top_group',
          what: 'the payment method churning most',
          expected: method,
        }),
        checkRate(inAnswer(outcome), {
          label: 'Top',
          name: 'top_rate',
          what: `churn rate for '${method}'`,
          expected: rate,
        }),
      ],
    }),
    goldenCase({
      id: 'golden-out-of-scope',
      level: 'scope',
      concepts: ['Out of scope'],
      message:
        'How many minutes did each customer spend on calls last month, and which cell towers dropped the most calls?',
      parts: (outcome) => [checkDeclined(outcome)],
    }),
    goldenCase({
      id: 'golden-audit-revision',
      level: 'review',
      concepts: ['Report review', 'Key comparison'],
      message:
        'Audit data quality of the train tables and write it up as a report section for review: how many ' +
        'customers in user_payments have no row in user_demographics? Put it in the section as the line ' +
        '`Missing demographics: <count>`.',
      reviews: [
        {
          revise:
            'Also give the number of user_services rows whose customerID is not in user_payments, as the line ' +
            '`Fake services: <count>`.',
        },
        'accept',
      ],
      playbook: PLAYBOOKS.audit,
      parts: (outcome) => [
        checkMissingDemographics(inSections(outcome), facts),
        checkCount(inSections(outcome), {
          label: 'Fake services',
          name: 'fake_services',
          what: 'user_services rows with an unknown customerID (asked for in the revision)',
          expected: facts.orphans.services,
        }),
      ],
    }),
  ];
}
