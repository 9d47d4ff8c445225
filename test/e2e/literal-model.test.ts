/**
 * Models that follow prompts literally (issue 22), end to end through the eval harness: a scripted
 * model that knows only the sources listed in its stage prompts declines any request whose columns
 * are not listed there, and writes code only with the path and columns it was shown. With shared
 * files profiled, the file and its columns are listed beside the tables, so it answers DABench cases
 * 1-20 and passes the golden suite. With TALLY_PROFILE_FILES=off the prompts list only the databases:
 * the same model declines every shared-file case, saying which columns it was not shown, and those
 * cases score wrong. The difference is the feature, not the scorer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUT_OF_SCOPE_TEXT } from '../../src/agent/open-request.js';
import { dabenchCases, loadDabench, selectCases } from '../../src/eval/dabench-suite.js';
import type { CaseResult } from '../../src/eval/eval-case.js';
import type { EvalRunOptions } from '../../src/eval/eval-harness.js';
import { loadGoldenCases } from '../../src/eval/golden/golden-suite.js';
import { summariseEval } from '../../src/eval/summarise-eval.js';
import { type EvalFixture, startEvalFixture } from '../support/eval-fixture.js';
import {
  type LiteralDabenchCase,
  listedSources,
  literalModel,
  NOT_LISTED,
  namedTelcoColumns,
  usedColumns,
  withCsvColumns,
} from '../support/literal-model.js';

const RUN: EvalRunOptions = { concurrency: 3, caseWallMs: 120_000, caseTokens: 400_000 };

let literal: LiteralDabenchCase[];

/** Every part that failed, with why, and every case that did not run to its end. */
const failures = (results: CaseResult[]) =>
  results.flatMap((result) => [
    ...(result.status === 'done' ? [] : [{ id: result.id, part: `status ${result.status}`, why: result.error }]),
    ...result.parts.filter((part) => !part.correct).map((part) => ({ id: result.id, part: part.name, why: part.why })),
  ]);

const correctOf = (results: CaseResult[]) => results.filter((result) => result.correct).length;

/**
 * What the first request of each case showed the model (where it triages): the system prompt and the user's
 * messages, before any reply of its own.
 */
const triagePrompts = (fixture: EvalFixture | undefined): string[] =>
  (fixture?.server.chatRequests ?? [])
    .map((request) => (request.body?.messages ?? []) as Array<{ role?: unknown; content?: unknown }>)
    .filter((messages) => !messages.some((message) => message.role === 'assistant'))
    .map((messages) =>
      messages
        .filter((message) => message.role === 'system' || message.role === 'user')
        .map((message) => String(message.content ?? ''))
        .join('\n\n'),
    );

beforeAll(async () => {
  literal = await withCsvColumns(selectCases(await loadDabench(), '1-20'));
  // Every question uses columns the model can find: otherwise it would decline them with profiles too.
  expect(literal.filter((entry) => usedColumns(entry).length === 0).map((entry) => entry.item.id)).toEqual([]);
});

describe('a literal model, with shared files profiled into the prompts', () => {
  let fixture: EvalFixture | undefined;

  beforeAll(async () => {
    fixture = await startEvalFixture('literal', literalModel({ dabench: literal, golden: true }));
  }, 180_000);

  afterAll(async () => {
    await fixture?.close();
  }, 120_000);

  it('answers DABench cases 1-20 right, reading each file with the columns it was shown', async () => {
    const results = await fixture?.harness.run(dabenchCases(literal.map((entry) => entry.item)), RUN);
    if (!results) throw new Error('no harness');
    expect(failures(results)).toEqual([]);
    expect(correctOf(results)).toBe(20);
    // One cell each, which read the shared file with usecols and did not fail; every figure grounded.
    expect(results.filter((result) => result.toolCalls !== 1 || result.failedToolCalls !== 0)).toEqual([]);
    expect(
      summariseEval(results, { suite: 'dabench', model: 'literal', startedAt: '', wallMs: 0 }).grounding,
    ).toMatchObject({ share: 1 });
    // The triage prompts listed the files with their columns, e.g. `- /inputs/uploads/GODREJIND.csv (CSV) (n rows): … Close Price float64`.
    const prompts = triagePrompts(fixture).join('\n');
    expect(prompts).toMatch(/^- \/inputs\/uploads\/GODREJIND\.csv \(CSV\) \([\d,]+ rows\): .*, Close Price float64/m);
    expect(prompts).toMatch(/^- \/inputs\/uploads\/insurance\.csv \(CSV\) \([\d,]+ rows\): age int64/m);
  }, 600_000);

  it('passes every part of the golden suite', async () => {
    const cases = loadGoldenCases();
    // Most requests name telco columns, which the model found listed at triage before it went on.
    expect(cases.filter((evalCase) => namedTelcoColumns(evalCase.message).length > 0).length).toBeGreaterThan(5);
    const results = await fixture?.harness.run(cases, RUN);
    if (!results) throw new Error('no harness');
    expect(results).toHaveLength(cases.length);
    expect(failures(results)).toEqual([]);
    expect(correctOf(results)).toBe(cases.length);
  }, 600_000);
});

describe('the same literal model, with TALLY_PROFILE_FILES=off', () => {
  let fixture: EvalFixture | undefined;

  beforeAll(async () => {
    fixture = await startEvalFixture('literaloff', literalModel({ dabench: literal }), { TALLY_PROFILE_FILES: 'off' });
  }, 180_000);

  afterAll(async () => {
    await fixture?.close();
  }, 120_000);

  it('declines every shared-file case among DABench 1-20, saying which columns it was not shown', async () => {
    const shared = literal.filter((entry) => entry.item.file_name !== '');
    expect(shared).toHaveLength(20);
    const results = await fixture?.harness.run(dabenchCases(shared.map((entry) => entry.item)), RUN);
    if (!results) throw new Error('no harness');
    expect(results.filter((result) => result.status !== 'done')).toEqual([]);
    expect(correctOf(results)).toBe(0);
    expect(results.filter((result) => result.toolCalls !== 0).map((result) => result.id)).toEqual([]);
    // The thread said the data cannot answer it, and named the columns the prompt did not list.
    expect(results.map((result) => [result.id, result.answer.slice(0, OUT_OF_SCOPE_TEXT.length)])).toEqual(
      shared.map((entry) => [`dabench-${entry.item.id}`, OUT_OF_SCOPE_TEXT]),
    );
    expect(
      results.filter((result, index) => {
        const columns = usedColumns(shared[index] as LiteralDabenchCase);
        return !result.transcript.includes(`${NOT_LISTED} ${columns.join(', ')} that the question uses`);
      }),
    ).toEqual([]);
    // The model was told where the file is, but not what is in it.
    const requests = JSON.stringify(fixture?.server.chatRequests.map((request) => request.body));
    expect(requests).toContain('[Shared files, readable in the kernel: /inputs/uploads/');
    const listedFiles = triagePrompts(fixture).flatMap((prompt) =>
      listedSources(prompt).filter((source) => source.name.startsWith('/inputs/')),
    );
    expect(listedFiles).toEqual([]);
  }, 600_000);
});
