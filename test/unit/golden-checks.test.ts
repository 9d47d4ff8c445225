/**
 * The golden suite's readers and checkers: numbers in the forms an analyst writes them, the line
 * that labels a value winning over a passing mention, rates judged to 3 decimals, failure messages
 * that say what was expected and what was found; and the suite itself, computed from the generator.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PLAYBOOKS_DIR } from '../../src/agent/playbooks.js';
import type { CaseOutcome } from '../../src/eval/eval-case.js';
import {
  checkAsked,
  checkCount,
  checkDeclined,
  checkInBand,
  checkNames,
  checkPlaybook,
  checkRate,
  checkVerifiedQuery,
  checkWord,
  findLabelledNumber,
  inAnswer,
  inSections,
  numbersIn,
  type Source,
} from '../../src/eval/golden/golden-checks.js';
import { loadGoldenCases } from '../../src/eval/golden/golden-suite.js';
import { KNOWLEDGE_NEEDED } from '../../src/eval/golden/knowledge-cases.js';
import { aucStandardError, churnAucBand } from '../../src/eval/golden/model-case.js';
import { computeTelcoFacts, rocAuc } from '../../src/eval/golden/telco-facts.js';
import { buildTelcoTables, generateCustomers } from '../../telco_data/index.js';

const answer = (text: string): Source => ({ text, where: 'in the answer' });

const outcome = (overrides: Partial<CaseOutcome> = {}): CaseOutcome => ({
  answer: '',
  sections: [],
  questions: [],
  declined: false,
  transcript: '',
  ...overrides,
});

describe('numbersIn', () => {
  it('reads thousands separators, fractions, percentages and signs', () => {
    expect(numbersIn('5,634 rows, 0.427, .5, 42.7%, 42.7 %, -1.5 and 1,409,000').map((found) => found.value)).toEqual([
      5634, 0.427, 0.5, 0.427, 0.427, -1.5, 1409000,
    ]);
    expect(numbersIn('41.4%')[0]).toEqual({ value: 0.414, text: '41.4%', percent: true });
  });

  it('skips digits inside ids and names, and does not merge a list into one number', () => {
    expect(numbersIn('7590-VHVEG in s1 of user_churn_new, v2')).toEqual([]);
    expect(numbersIn('5352, 5734').map((found) => found.value)).toEqual([5352, 5734]);
    expect(numbersIn('Count: 282.').map((found) => found.value)).toEqual([282]);
  });
});

describe('findLabelledNumber', () => {
  it('finds the value on a labelled line in lists, bold text and tables', () => {
    expect(findLabelledNumber('- **Two year**: 0.029', 'Two year', 'rate')?.value).toBe(0.029);
    expect(findLabelledNumber('| Contract | rate |\n|---|---|\n| Two year | 2.9% |', 'Two year', 'rate')?.value).toBe(
      0.029,
    );
    expect(findLabelledNumber('`user_churn` = 5,684', 'user_churn', 'count')?.value).toBe(5684);
  });

  it('prefers the labelled line to a mention, and the last labelled line to an earlier one', () => {
    const text = 'Two year contracts are 24% of customers.\nTwo year: 0.031\nafter a fix\nTwo year: 0.029';
    expect(findLabelledNumber(text, 'Two year', 'rate')?.text).toBe('0.029');
    expect(findLabelledNumber('Month-to-month (n=3,123) churn: 0.414', 'Month-to-month', 'rate')?.value).toBe(0.414);
  });

  it('takes the number of the kind asked for and keeps whole words apart', () => {
    expect(findLabelledNumber('user_churn_new: 1409\nuser_churn: 5684 rows (101%)', 'user_churn', 'count')?.value).toBe(
      5684,
    );
    expect(findLabelledNumber('No: 1207 customers, 9.3%', 'No', 'rate')?.value).toBeCloseTo(0.093);
    expect(findLabelledNumber('Rates: Two year is low', 'Two year', 'rate')).toBeUndefined();
  });
});

describe('checkRate', () => {
  const rate = (text: string, expected: number) =>
    checkRate(answer(text), { label: 'Two year', what: "churn rate for contract 'Two year'", expected });

  it('accepts the rate to 3 decimals, a percentage, or a more precise value', () => {
    expect(rate('Two year: 0.029', 0.029082).correct).toBe(true);
    expect(rate('Two year: 2.9%', 0.029082).correct).toBe(true);
    expect(rate('Two year: 0.0291', 0.029082).correct).toBe(true);
    expect(rate('Two year: 0.43', 0.43021).correct).toBe(true); // 0.430, as pandas prints it
  });

  it('rejects a rate rounded to 2 decimals or off by more than half a thousandth, saying why', () => {
    expect(rate('Two year: 0.03', 0.029082)).toEqual({
      name: 'Two year',
      correct: false,
      expected: '0.029',
      got: '0.03',
      why: "expected churn rate for contract 'Two year' 0.029 (3 decimals), found 0.03",
    });
    expect(rate('Two year: 0.031', 0.029082).correct).toBe(false);
    expect(rate('Two year: 0.0297', 0.029082).correct).toBe(false);
  });

  it('says so when the answer has no rate after the label', () => {
    expect(rate('Two year contracts churn least.', 0.029082).why).toBe(
      "expected churn rate for contract 'Two year' 0.029, found no rate (a fraction like 0.427 or a percentage like 42.7%) after 'Two year' in the answer",
    );
  });
});

describe('the other checks', () => {
  it('checks counts exactly', () => {
    const check = (text: string) =>
      checkCount(answer(text), { label: 'Blank', what: 'blank TotalCharges', expected: 32 });
    expect(check('Blank: 32\nBlank with tenure: 24').correct).toBe(true);
    expect(checkCount(inAnswer(outcome({ answer: 'Blank: 32' })), { label: 'Blank', what: '', expected: 32 }).got).toBe(
      '32',
    );
    expect(check('Blank with tenure: 24\nBlank: 31').why).toBe('expected blank TotalCharges 32, found 31');
    expect(
      checkCount(inSections(outcome({ sections: ['Fake services: 100'] })), {
        label: 'Missing demographics',
        what: 'customers without demographics',
        expected: 282,
      }).why,
    ).toBe(
      "expected customers without demographics 282, found no whole number after 'Missing demographics' in the accepted report sections",
    );
  });

  it('checks a band, a set of names and a word', () => {
    const band = { label: 'ROC AUC', what: 'test-set ROC AUC', low: 0.79, high: 0.95 };
    expect(checkInBand(answer('ROC AUC: 0.864'), band).correct).toBe(true);
    expect(checkInBand(answer('ROC AUC: 0.998'), band).why).toBe(
      'expected test-set ROC AUC within 0.790..0.950, found 0.998',
    );
    const tables = ['user_demographics', 'user_services', 'user_payments', 'user_churn'];
    const names = (text: string, expected: string[]) =>
      checkNames(answer(text), { label: 'Disagree', what: 'tables:', expected, vocabulary: tables });
    expect(names('Disagree: `user_churn` and user_services', ['user_services', 'user_churn']).correct).toBe(true);
    expect(names('Disagree: none', []).correct).toBe(true);
    expect(names('Disagree: user_churn_new, user_churn', ['user_services', 'user_churn']).why).toBe(
      'expected tables: user_churn, user_services, found user_churn',
    );
    const word = (text: string) =>
      checkWord(answer(text), { label: 'First', what: 'first missing customerID', expected: '0003-VUGQT' });
    expect(word('First: **0003-VUGQT**').correct).toBe(true);
    expect(word('First: 0003-VUGQX').why).toBe("expected first missing customerID 0003-VUGQT, found '0003-VUGQX'");
  });

  it('scores the playbook, the clarifying question and the refusal', () => {
    expect(checkPlaybook(outcome({ playbook: 'churn-drivers.md' }), 'churn-drivers.md').correct).toBe(true);
    expect(checkPlaybook(outcome({ playbook: 'eda-overview.md' }), 'table-consistency-audit.md').why).toBe(
      'expected playbook table-consistency-audit.md, the thread followed eda-overview.md',
    );
    expect(checkPlaybook(outcome({ playbook: 'eda-overview.md' }), undefined).correct).toBe(false);
    expect(checkAsked(outcome({ questions: ['Which grouping?'] })).correct).toBe(true);
    expect(checkAsked(outcome()).correct).toBe(false);
    expect(checkDeclined(outcome({ declined: true })).correct).toBe(true);
    expect(checkDeclined(outcome({ answer: 'About 1,200 minutes.' })).why).toMatch(/it answered: About 1,200 minutes/);
  });

  it('checks that the thread used the verified query of that name', () => {
    const used = (name: string) =>
      outcome({ transcript: `Using the verified query *${name}* (verified by telco analytics team).\n\nrates` });
    expect(checkVerifiedQuery(used('churn rate by payment method'), 'churn rate by payment method')).toEqual({
      name: 'verified_query',
      correct: true,
      expected: 'churn rate by payment method',
      got: 'churn rate by payment method',
    });
    expect(checkVerifiedQuery(used('churn rate by contract'), 'churn rate by payment method')).toMatchObject({
      correct: false,
      got: 'churn rate by contract',
      why: "expected the thread to use the verified query 'churn rate by payment method', it used 'churn rate by contract'",
    });
    // Naming the query in the answer is not running it: only run_verified_query posts "Using …".
    expect(
      checkVerifiedQuery(outcome({ transcript: 'From the verified query "churn rate by payment method": …' }), 'x'),
    ).toMatchObject({ correct: false, why: "expected the thread to use the verified query 'x', it used none" });
  });
});

describe('the golden suite', () => {
  const facts = computeTelcoFacts();
  const cases = loadGoldenCases(facts);

  it('has at least 12 cases of every kind, each naming a playbook that exists (or none, on purpose)', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
    expect(new Set(cases.map((evalCase) => evalCase.id)).size).toBe(cases.length);
    expect(new Set(cases.map((evalCase) => evalCase.level))).toEqual(
      new Set(['consistency', 'rates', 'model', 'clarify', 'scope', 'review', 'knowledge']),
    );
    // The declined request, and a head count of active customers, which no playbook covers.
    const fits = (evalCase: (typeof cases)[number]) =>
      evalCase.rankedPlaybook === undefined ? evalCase.playbook : evalCase.rankedPlaybook;
    expect(cases.filter((evalCase) => !fits(evalCase)).map((evalCase) => evalCase.id)).toEqual([
      'golden-out-of-scope',
      'golden-active-customers',
    ]);
    for (const evalCase of cases.filter((candidate) => fits(candidate))) {
      expect(existsSync(join(PLAYBOOKS_DIR, fits(evalCase) ?? 'missing'))).toBe(true);
    }
    // Only a request triage finds multi-step is given a playbook: the lookups follow none, though one fits them.
    expect(cases.filter((evalCase) => evalCase.playbook).map((evalCase) => evalCase.id)).toEqual([
      'golden-churn-model',
      'golden-clarify-top-churners',
      'golden-audit-revision',
    ]);
  });

  it('has three knowledge cases whose messages leave the definition to the knowledge store', () => {
    const knowledge = cases.filter((evalCase) => evalCase.level === 'knowledge');
    expect(knowledge.map((evalCase) => evalCase.id)).toEqual(Object.keys(KNOWLEDGE_NEEDED));
    // No join, table or filter in the message: only retrieval can supply them.
    for (const evalCase of knowledge) {
      expect(evalCase.message).not.toMatch(/user_\w+|customerID|Churn = |tenure|JOIN/i);
    }
    // The synonym case says attrition, never churn: only the definition's synonyms link the two.
    const attrition = knowledge.find((evalCase) => evalCase.id === 'golden-attrition-by-contract')?.message;
    expect(attrition).toMatch(/attrition rate/);
    expect(attrition).not.toMatch(/churn/i);
  });

  it('scores the knowledge cases on the defined count, the rates and the verified query', () => {
    const score = (id: string, fields: Partial<CaseOutcome>) =>
      cases.find((evalCase) => evalCase.id === id)?.score(outcome(fields)) ?? [];
    const wrong = (parts: ReturnType<typeof score>) => parts.filter((part) => !part.correct).map((part) => part.name);
    expect(wrong(score('golden-active-customers', { answer: `Active customers: ${facts.activeCustomers}` }))).toEqual(
      [],
    );
    // Counts are exact: one customer more (a tenure-0 one, say) is wrong.
    expect(
      wrong(score('golden-active-customers', { answer: `Active customers: ${facts.activeCustomers + 1}` })),
    ).toEqual(['active_customers']);
    const rates = [...facts.churnByPaymentMethod].map(([method, rate]) => `${method}: ${rate.toFixed(4)}`).join('\n');
    const drivers = {};
    expect(
      wrong(
        score('golden-verified-payment-method', {
          ...drivers,
          answer: rates,
          transcript: `Using the verified query *churn rate by payment method* (verified by x).\n\n${rates}`,
        }),
      ),
    ).toEqual([]);
    expect(wrong(score('golden-verified-payment-method', { ...drivers, answer: rates, transcript: rates }))).toEqual([
      'verified_query',
    ]);
    const contracts = [...facts.churnByContract]
      .map(([contract, rate]) => `${contract}: ${rate.toFixed(3)}`)
      .join('\n');
    expect(wrong(score('golden-attrition-by-contract', { ...drivers, answer: contracts }))).toEqual([]);
  });

  it('computes its expectations from the generator, so other data moves them', () => {
    const built = buildTelcoTables(generateCustomers());
    const payments = built.tables.find((table) => table.spec.name === 'user_payments')?.rows ?? [];
    expect(facts.rows.user_payments).toBe(payments.length);
    expect(facts.missingDemographics.count).toBe(built.problems.droppedDemographics.length);
    expect(facts.orphans).toEqual({
      services: built.problems.fakeServiceCustomers.length,
      churn: built.problems.fakeChurnCustomers.length,
    });
    expect(facts.blankCells.Contract).toBe(
      built.problems.blankedPaymentCells.filter((cell) => cell.column === 'Contract').length,
    );
    expect(facts.totalCharges.null).toBe(0);
    expect(facts.disagreeing).toEqual(['user_demographics', 'user_services', 'user_churn']);
  });

  it('scores a right answer right and a rounded one wrong', () => {
    const byContract = cases.find((evalCase) => evalCase.id === 'golden-churn-by-contract');
    const lines = (decimals: number) =>
      [...facts.churnByContract].map(([contract, rate]) => `${contract}: ${rate.toFixed(decimals)}`).join('\n');
    const right = byContract?.score(outcome({ answer: lines(3) })) ?? [];
    expect(right.filter((part) => !part.correct)).toEqual([]);
    const rounded = byContract?.score(outcome({ answer: lines(2) })) ?? [];
    expect(rounded.find((part) => part.name === 'Two year')?.correct).toBe(false);
    // A lookup given a method playbook is wrong: it wastes every request of the turn.
    expect(byContract?.score(outcome({ answer: lines(3), playbook: 'churn-drivers.md' })).at(-1)?.why).toBe(
      'expected playbook none, the thread followed churn-drivers.md',
    );
  });

  it('bounds the model AUC above the best one-feature ranking and below leakage', () => {
    expect(rocAuc([0.1, 0.4, 0.35, 0.8], [false, false, true, true])).toBe(0.75);
    expect(rocAuc([1, 1, 1], [true, false, false])).toBe(0.5);
    expect(aucStandardError(0.8, 375, 1034)).toBeGreaterThan(0.01);
    const band = churnAucBand(facts);
    expect(band.low).toBeGreaterThan(facts.bestOneFeatureAuc.auc);
    expect(band.low).toBeLessThan(band.high);
    const model = cases.find((evalCase) => evalCase.id === 'golden-churn-model');
    const score = (auc: string) =>
      model?.score(outcome({ answer: `ROC AUC: ${auc}`, playbook: 'churn-prediction.md' }))[0]?.correct;
    expect(score(facts.bestOneFeatureAuc.auc.toFixed(3))).toBe(false);
    expect(score(((band.low + band.high) / 2).toFixed(3))).toBe(true);
  });
});
