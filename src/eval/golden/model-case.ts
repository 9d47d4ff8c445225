/**
 * The golden modelling question: a churn classifier trained on the train tables, its ROC AUC on the
 * `_new` tables. The AUC is not one number (any sound model will do), so the checker takes a band:
 *
 * - the floor is the best one-feature ranking on the same test customers (see `bestOneFeatureAuc`;
 *   tenure, about 0.749 with the default data) plus three standard errors of an AUC on that many
 *   customers (Hanley and McNeil), so a model must beat the strongest single driver clearly, not
 *   by luck;
 * - the ceiling is 0.95: churn is drawn at random from each customer's probability, so even the
 *   generator's own probabilities rank customers far from perfectly; an AUC above 0.95 means the
 *   model saw the answer (Churn among the features, or scored on its training rows).
 *
 * Measured in the sandbox for the default data: logistic regression on contract, internet, payment
 * method, paperless billing, two add-ons and log tenure 0.864; gradient boosting on every column
 * 0.852; the floor comes to 0.796.
 */
import type { EvalCase } from '../eval-case.js';
import { goldenCase, PLAYBOOKS } from './golden-case.js';
import { checkInBand, inAnswer } from './golden-checks.js';
import type { TelcoFacts } from './telco-facts.js';

/** Above this the model has seen the labels (see the file header). */
const LEAKAGE_AUC = 0.95;

/** Standard error of an AUC of `auc` with these class sizes (Hanley and McNeil, 1982). */
export function aucStandardError(auc: number, positives: number, negatives: number): number {
  const q1 = auc / (2 - auc);
  const q2 = (2 * auc * auc) / (1 + auc);
  const variance =
    (auc * (1 - auc) + (positives - 1) * (q1 - auc * auc) + (negatives - 1) * (q2 - auc * auc)) /
    (positives * negatives);
  return Math.sqrt(variance);
}

/** The band a sound churn model's test ROC AUC falls in (see the file header). */
export function churnAucBand(facts: TelcoFacts): { low: number; high: number } {
  const { auc, positives, negatives } = facts.bestOneFeatureAuc;
  return { low: auc + 3 * aucStandardError(auc, positives, negatives), high: LEAKAGE_AUC };
}

export function modelCase(facts: TelcoFacts): EvalCase {
  const band = churnAucBand(facts);
  return goldenCase({
    id: 'golden-churn-model',
    level: 'model',
    concepts: ['Churn prediction', 'ROC AUC'],
    message:
      'Build a model that predicts which customers will churn: train a classifier on the train tables and ' +
      'report its ROC AUC on the test tables (the `_new` tables), which it must not see while training. ' +
      'Answer with the line `ROC AUC: <value>` (3 decimals).',
    playbook: PLAYBOOKS.prediction,
    parts: (outcome) => [
      checkInBand(inAnswer(outcome), {
        label: 'ROC AUC',
        name: 'roc_auc',
        what: `test-set ROC AUC (above the best one-feature ranking, ${facts.bestOneFeatureAuc.feature}, by 3 standard errors; below ${LEAKAGE_AUC}, leakage)`,
        ...band,
      }),
    ],
  });
}
