/**
 * Golden questions on churn rates: by contract, by internet service, by payment method, and overall
 * in the train and test parts. Each message fixes the population (which join, which blanks are left
 * out) because the damage makes "the churn rate" depend on it, and asks for 3 decimals.
 */
import type { EvalCase } from '../eval-case.js';
import { goldenCase, PLAYBOOKS } from './golden-case.js';
import { checkRate, inAnswer } from './golden-checks.js';
import type { TelcoFacts } from './telco-facts.js';

const RATE = "Churn rate = share of customers with Churn = 'Yes', to 3 decimals.";

/** One part per value: its churn rate on its own line. */
function ratesCase(options: {
  id: string;
  concept: string;
  message: string;
  what: string;
  rates: Map<string, number>;
}): EvalCase {
  return goldenCase({
    id: options.id,
    level: 'rates',
    concepts: ['Churn rate', options.concept],
    message: options.message,
    playbook: PLAYBOOKS.drivers,
    lookup: true,
    parts: (outcome) =>
      [...options.rates].map(([value, rate]) =>
        checkRate(inAnswer(outcome), {
          label: value,
          what: `churn rate for ${options.what} '${value}'`,
          expected: rate,
        }),
      ),
  });
}

export function rateCases(facts: TelcoFacts): EvalCase[] {
  return [
    ratesCase({
      id: 'golden-churn-by-contract',
      concept: 'Contract',
      what: 'contract',
      rates: facts.churnByContract,
      message:
        'Which contract types churn most? Give the churn rate by contract type on the train tables: customers in ' +
        'user_payments joined to user_churn on customerID, leaving out rows whose Contract is blank. ' +
        `${RATE} Answer with one line per contract type, like \`Month-to-month: <rate>\`.`,
    }),
    ratesCase({
      id: 'golden-churn-by-internet',
      concept: 'Internet service',
      what: 'internet service',
      rates: facts.churnByInternet,
      message:
        'Is churn higher for fiber optic customers? Give the churn rate by internet service on the train tables: ' +
        `user_services joined to user_churn on customerID. ${RATE} Answer with one line per InternetService ` +
        'value, like `Fiber optic: <rate>` (customers without internet as `No: <rate>`).',
    }),
    ratesCase({
      id: 'golden-churn-by-payment-method',
      concept: 'Payment method',
      what: 'payment method',
      rates: facts.churnByPaymentMethod,
      message:
        'Do customers who pay by electronic check churn more? Give the churn rate by payment method on the train ' +
        'tables: customers in user_payments joined to user_churn on customerID, leaving out rows whose ' +
        `PaymentMethod is blank. ${RATE} Answer with one line per payment method, like \`Mailed check: <rate>\`.`,
    }),
    goldenCase({
      id: 'golden-churn-overall',
      level: 'rates',
      concepts: ['Churn rate'],
      message:
        'What is the overall churn rate, in the train part and in the test part? Train: the user_churn rows ' +
        'whose customerID is in user_payments (leave out churn rows of unknown customers). Test: all of ' +
        `user_churn_new. ${RATE} Answer with the lines \`Train: <rate>\` and \`Test: <rate>\`.`,
      playbook: PLAYBOOKS.drivers,
      lookup: true,
      parts: (outcome) => [
        checkRate(inAnswer(outcome), {
          label: 'Train',
          what: 'churn rate of the train customers',
          expected: facts.trainChurnRate,
        }),
        checkRate(inAnswer(outcome), {
          label: 'Test',
          what: 'churn rate in user_churn_new',
          expected: facts.testChurnRate,
        }),
      ],
    }),
  ];
}
