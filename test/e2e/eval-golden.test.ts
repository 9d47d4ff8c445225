/**
 * The telco golden suite end to end: MariaDB telco_db, the real router, agent (triage, playbook,
 * plan, tool loop), sandbox and review, with a scripted oracle that runs the right SQL and pandas and
 * answers from what they return. Every part is right, save one the agent gets wrong today; an oracle
 * that rounds one case's rates to 2 decimals fails that case alone, and its checker says why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptStep } from '../../src/demo/scripted-model-server.js';
import type { CaseResult } from '../../src/eval/eval-case.js';
import type { EvalHarness } from '../../src/eval/eval-harness.js';
import { loadGoldenCases } from '../../src/eval/golden/golden-suite.js';
import { churnAucBand } from '../../src/eval/golden/model-case.js';
import { computeTelcoFacts } from '../../src/eval/golden/telco-facts.js';
import { type EvalFixture, startEvalFixture } from '../support/eval-fixture.js';
import { goldenOracleStep, STALE_CASE } from '../support/golden-oracle.js';

const facts = computeTelcoFacts();
const cases = loadGoldenCases(facts);
const RUN = { concurrency: 4, caseWallMs: 120_000, caseTokens: 400_000 };

let fixture: EvalFixture | undefined;
let harness: EvalHarness;
let stale = false;

/** Every part that failed, with why, and every case that did not run to its end. */
const failures = (results: CaseResult[]) =>
  results.flatMap((result) => [
    ...(result.status === 'done' ? [] : [{ id: result.id, part: `status ${result.status}`, why: result.error }]),
    ...result.parts.filter((part) => !part.correct).map((part) => ({ id: result.id, part: part.name, why: part.why })),
  ]);

beforeAll(async () => {
  const right = goldenOracleStep();
  const rounded = goldenOracleStep({ stale: true });
  const script = Array.from({ length: 1000 }, (): ScriptStep => (context) => (stale ? rounded : right)(context));
  fixture = await startEvalFixture('evalgold', script);
  harness = fixture.harness;
}, 180_000);

afterAll(async () => {
  await fixture?.close();
}, 120_000);

describe('tally eval on the telco golden suite (scripted oracle)', () => {
  it('scores every case right when the analysis is right', async () => {
    stale = false;
    const results = await harness.run(cases, RUN);
    expect(results).toHaveLength(cases.length);
    expect(failures(results)).toEqual([]);
    const byId = new Map(results.map((result) => [result.id, result]));
    const clarify = cases.find((evalCase) => evalCase.level === 'clarify');
    expect(byId.get(clarify?.id ?? '')?.transcript).toMatch(/Group the customers by what/);
    expect(byId.get('golden-out-of-scope')?.answer).toMatch(/^I can't answer that from the data I have/);
    // The revision reached the report: only the accepted second version carries the fake services.
    expect(byId.get('golden-audit-revision')?.transcript).toMatch(/Revising s1/);
    const auc = byId.get('golden-churn-model')?.parts.find((part) => part.name === 'roc_auc');
    const band = churnAucBand(facts);
    expect(Number(auc?.got)).toBeGreaterThan(band.low);
    expect(Number(auc?.got)).toBeLessThan(band.high);
    // The numbers came from tools, not from the suite: every computing case ran SQL or Python.
    const computing = results.filter((result) => result.level !== 'scope');
    expect(computing.filter((result) => result.toolCalls === 0).map((result) => result.id)).toEqual([]);
    expect(byId.get('golden-out-of-scope')?.toolCalls).toBe(0);
    expect(results.every((result) => result.failedToolCalls === 0)).toBe(true);
  }, 600_000);

  it('fails the case whose rates were rounded to 2 decimals, and says why', async () => {
    stale = true;
    const results = await harness.run(cases, RUN);
    const twoYear = facts.churnByContract.get('Two year') ?? Number.NaN;
    expect(failures(results).filter((failure) => failure.id === STALE_CASE)).toContainEqual({
      id: STALE_CASE,
      part: 'Two year',
      why: `expected churn rate for contract 'Two year' ${twoYear.toFixed(3)} (3 decimals), found ${Math.round(twoYear * 100) / 100}`,
    });
    expect(failures(results).filter((failure) => failure.id !== STALE_CASE)).toEqual([]);
    expect(results.find((result) => result.id === STALE_CASE)?.correct).toBe(false);
  }, 600_000);
});
