/**
 * Golden questions on the damage in telco_db's train tables: row counts and which tables disagree,
 * customers missing from demographics, orphan keys, blank versus NULL TotalCharges, and blank cells
 * per column. Each asks for labelled lines so the checkers read the right number.
 */
import type { EvalCase } from '../eval-case.js';
import { checkMissingDemographics, goldenCase, PLAYBOOKS } from './golden-case.js';
import { checkCount, checkNames, checkWord, inAnswer } from './golden-checks.js';
import { BLANKABLE_COLUMNS, type TelcoFacts, TRAIN_TABLES } from './telco-facts.js';

export function consistencyCases(facts: TelcoFacts): EvalCase[] {
  return [
    goldenCase({
      id: 'golden-row-counts',
      level: 'consistency',
      concepts: ['Row counts', 'Key comparison'],
      message:
        'Are the four train tables of telco_db consistent? Count the rows of user_demographics, user_services, ' +
        'user_payments and user_churn, and tell me which tables do not hold exactly the same customer ids as ' +
        'user_payments, the reference table. Answer with one line per table, like `user_payments: <rows>`, then ' +
        'one line `Disagree: <tables>` (or `Disagree: none`).',
      playbook: PLAYBOOKS.audit,
      lookup: true,
      parts: (outcome) => [
        ...TRAIN_TABLES.map((table) =>
          checkCount(inAnswer(outcome), { label: table, what: `rows in ${table}`, expected: facts.rows[table] }),
        ),
        checkNames(inAnswer(outcome), {
          label: 'Disagree',
          name: 'disagree',
          what: 'tables whose customer ids differ from user_payments:',
          expected: facts.disagreeing,
          vocabulary: TRAIN_TABLES,
        }),
      ],
    }),
    goldenCase({
      id: 'golden-missing-demographics',
      level: 'consistency',
      concepts: ['Key comparison'],
      message:
        'How many customers in user_payments have no row in user_demographics, and which of those missing ' +
        'customer ids comes first in alphabetical order? Answer with the lines `Missing demographics: <count>` ' +
        'and `First: <customerID>`.',
      playbook: PLAYBOOKS.audit,
      lookup: true,
      parts: (outcome) => [
        checkMissingDemographics(inAnswer(outcome), facts),
        checkWord(inAnswer(outcome), {
          label: 'First',
          name: 'first',
          what: 'first missing customerID',
          expected: facts.missingDemographics.firstId,
        }),
      ],
    }),
    goldenCase({
      id: 'golden-orphan-keys',
      level: 'consistency',
      concepts: ['Key comparison'],
      message:
        'Check the keys: how many rows of user_services and how many rows of user_churn have a customerID that ' +
        'is missing from user_payments? Answer with the lines `user_services: <count>` and `user_churn: <count>`.',
      playbook: PLAYBOOKS.audit,
      lookup: true,
      parts: (outcome) => [
        checkCount(inAnswer(outcome), {
          label: 'user_services',
          what: 'user_services rows with an unknown customerID',
          expected: facts.orphans.services,
        }),
        checkCount(inAnswer(outcome), {
          label: 'user_churn',
          what: 'user_churn rows with an unknown customerID',
          expected: facts.orphans.churn,
        }),
      ],
    }),
    goldenCase({
      id: 'golden-blank-total-charges',
      level: 'consistency',
      concepts: ['Blanks versus NULLs'],
      message:
        "In user_payments, how many TotalCharges cells are blank text ('') and how many are NULL? Blanks and " +
        'nulls are different damage, so count them apart. And how many of the blank ones belong to customers ' +
        'whose tenure in user_services is above 0? Answer with the lines `Blank: <count>`, `NULL: <count>` and ' +
        '`Blank with tenure: <count>`.',
      playbook: PLAYBOOKS.audit,
      lookup: true,
      parts: (outcome) => [
        checkCount(inAnswer(outcome), {
          label: 'Blank',
          what: "blank ('') TotalCharges",
          expected: facts.totalCharges.blank,
        }),
        checkCount(inAnswer(outcome), { label: 'NULL', what: 'NULL TotalCharges', expected: facts.totalCharges.null }),
        checkCount(inAnswer(outcome), {
          label: 'Blank with tenure',
          what: 'blank TotalCharges with tenure above 0',
          expected: facts.totalCharges.blankWithTenure,
        }),
      ],
    }),
    goldenCase({
      id: 'golden-blank-cells',
      level: 'consistency',
      concepts: ['Blanks versus NULLs'],
      message:
        // Naming the payment columns here (Contract, PaymentMethod, ...) routes the request to churn-drivers,
        // whose tags hold the same words: a weakness of the ranking, kept out of this case's way.
        "Audit the payments table for blanks: how many blank ('') cells does each text column of user_payments " +
        'have? Answer with one line per column, like `Contract: <count>`.',
      playbook: PLAYBOOKS.audit,
      lookup: true,
      parts: (outcome) =>
        BLANKABLE_COLUMNS.map((column) =>
          checkCount(inAnswer(outcome), {
            label: column,
            what: `blank ${column} cells`,
            expected: facts.blankCells[column],
          }),
        ),
    }),
  ];
}
