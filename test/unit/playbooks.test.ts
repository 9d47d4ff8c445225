import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stem, tokenize } from '../../src/agent/bm25.js';
import {
  formatPlaybookForPrompt,
  loadPlaybooks,
  PLAYBOOK_SECTIONS,
  parsePlaybook,
  playbookWithoutCode,
  rankPlaybooks,
} from '../../src/agent/playbooks.js';
import { loadStagePrompts, renderPrompt } from '../../src/agent/stage-prompts.js';
import { PromptFileError } from '../../src/base/errors.js';
import { parseScheduleFile } from '../../src/schedules/schedule-file.js';
import { NAMED_REQUESTS, SUBJECTLESS_REQUESTS } from '../support/playbook-requests.js';

const playbooks = await loadPlaybooks();

const VALID = [
  '---',
  'title: Trend check',
  'tags: trend, time series',
  'when: The user asks how a measure changes over time.',
  '---',
  ...PLAYBOOK_SECTIONS.flatMap((section) => [`## ${section}`, '', `${section} text.`, '']),
].join('\n');

describe('playbooks', () => {
  it('loads the shipped playbooks with their front matter and four sections', () => {
    expect(playbooks.map((playbook) => playbook.file)).toEqual(
      expect.arrayContaining([
        'table-consistency-audit.md',
        'churn-drivers.md',
        'customer-segmentation.md',
        'churn-prediction.md',
      ]),
    );
    for (const playbook of playbooks) {
      expect(playbook.title).not.toBe('');
      expect(playbook.tags.length).toBeGreaterThan(3);
      expect(playbook.sections['Example code']).toMatch(/^```python\n[\s\S]+\n```$/);
      expect(Object.keys(playbook.sections)).toEqual([...PLAYBOOK_SECTIONS]);
    }
  });

  it('folds related word forms to one stem', () => {
    expect(new Set(['segments', 'segmentation', 'segment'].map(stem))).toEqual(new Set(['segment']));
    expect(new Set(['predict', 'predicts', 'prediction', 'predicted'].map(stem))).toEqual(new Set(['predict']));
    expect(tokenize('Which customers churned?')).toEqual(['custom', 'churn']);
  });

  it.each(NAMED_REQUESTS)('follows the right playbook for "%s"', (request, file) => {
    const [best] = rankPlaybooks(playbooks, request);
    expect(best?.playbook.file).toBe(file);
  });

  it.each(["What's the weather in Paris?", 'Write me a poem', 'Translate hello into German', ...SUBJECTLESS_REQUESTS])(
    'follows no playbook for "%s"',
    (request) => {
      expect(rankPlaybooks(playbooks, request)).toEqual([]);
    },
  );

  it('follows no playbook whose subject the request does not name, however many method words it shares', () => {
    const request = 'Build a classifier that predicts passenger survival; report accuracy, precision and recall';
    const prediction = playbooks.find((playbook) => playbook.file === 'churn-prediction.md');
    expect(prediction?.about).toContain('churn');
    expect(rankPlaybooks(playbooks, request)).toEqual([]);
    expect(rankPlaybooks(playbooks, `${request} of churn`)[0]?.playbook.file).toBe('churn-prediction.md');
    // Without `about`, nothing is checked: the same request then follows it.
    const unscoped = playbooks.map(({ about: _, ...playbook }) => playbook);
    expect(rankPlaybooks(unscoped, request)[0]?.playbook.file).toBe('churn-prediction.md');
  });

  it('needs two words of the request in the title, tags, when or ask of a playbook', () => {
    // "churn" names the subject of both churn playbooks and is in their descriptions: one word is chance.
    expect(rankPlaybooks(playbooks, 'churn', { minScore: 0 })).toEqual([]);
    expect(rankPlaybooks(playbooks, 'churn', { minScore: 0, minMatchedTerms: 1 }).length).toBeGreaterThan(0);
    expect(rankPlaybooks(playbooks, 'churn drivers')[0]?.playbook.file).toBe('churn-drivers.md');
  });

  it.each(['telco_db', 'sales', undefined])(
    'follows the playbook a schedule names, whatever its fit (database %s)',
    (database) => {
      const entries = playbooks.map((playbook, index) =>
        [
          `  - name: run-${index}`,
          '    cron: "0 9 * * 1"',
          '    timezone: UTC',
          `    playbook: ${playbook.file}`,
          ...(database ? [`    database: ${database}`] : []),
          '    channel: slack:T1:C1',
          '    owner: U1',
        ].join('\n'),
      );
      const schedules = parseScheduleFile(`schedules:\n${entries.join('\n')}\n`, 'schedules.yaml', {
        databases: ['telco_db', 'sales'],
        playbooks,
      });
      expect(schedules.map((schedule) => rankPlaybooks(playbooks, schedule.request)[0]?.playbook.file)).toEqual(
        playbooks.map((playbook) => playbook.file),
      );
    },
  );

  it('puts a playbook named by its file first, even below the fit or without its subject', () => {
    const request = 'Which factors drive churn? Use segments as customer-segmentation.md does.';
    expect(rankPlaybooks(playbooks, request, { top: 2 }).map((entry) => entry.playbook.file)).toEqual([
      'customer-segmentation.md',
      'churn-drivers.md',
    ]);
    expect(rankPlaybooks(playbooks, 'Run eda-overview.md on it')[0]?.playbook.file).toBe('eda-overview.md');
  });

  it('divides BM25 by the distinct words of the request, so padding lowers the fit', () => {
    const [short] = rankPlaybooks(playbooks, 'Which factors drive churn?', { minScore: 0 });
    const [padded] = rankPlaybooks(playbooks, 'Which factors drive churn? Friday board meeting slides, nicely please', {
      minScore: 0,
    });
    expect(short?.playbook.file).toBe('churn-drivers.md');
    expect(padded?.playbook.file).toBe('churn-drivers.md');
    expect(padded?.score).toBeCloseTo(((short?.score ?? 0) * 3) / 8);
  });

  it('returns the top ones best first, above the minimum score', () => {
    const ranked = rankPlaybooks(playbooks, 'Which factors drive churn, and can we predict it?', { top: 3 });
    expect(ranked.length).toBeGreaterThan(1);
    expect(ranked.map((entry) => entry.score)).toEqual([...ranked.map((entry) => entry.score)].sort((a, b) => b - a));
    expect(rankPlaybooks(playbooks, 'Which factors drive churn?', { minScore: 100 })).toEqual([]);
  });

  it('puts the chosen playbook into the plan prompt without its example code, which the act requests get', async () => {
    const { plan } = await loadStagePrompts();
    const [best] = rankPlaybooks(playbooks, 'Is churn significantly higher for fiber optic customers?');
    if (!best) throw new Error('no playbook chosen');
    const whole = formatPlaybookForPrompt(best.playbook);
    expect(whole).toContain('### Example code\n');
    expect(whole).toContain('chi2_contingency(');
    const prompt = renderPrompt(plan.template, { playbook: playbookWithoutCode(whole) });
    expect(prompt).toContain('Playbook to follow: Churn driver analysis (churn-drivers.md)');
    for (const section of PLAYBOOK_SECTIONS.slice(0, 3)) expect(prompt).toContain(`### ${section}\n`);
    expect(prompt).not.toContain('### Example code');
    expect(prompt).not.toContain('```python');
    expect(playbookWithoutCode('no sections')).toBe('no sections');
  });

  it.each([
    ['no front matter', VALID.replace(/^---[\s\S]*?---\n/, ''), /must start with front matter/],
    ['a missing key', VALID.replace(/^when: .*\n/m, ''), /front matter needs when/],
    ['an empty key', VALID.replace('title: Trend check', 'title:'), /front matter needs title/],
    ['an unknown key', VALID.replace('tags:', 'colour: red\ntags:'), /unknown front matter key 'colour'/],
    ['a missing section', VALID.replace('## Hints\n\nHints text.\n', ''), /missing section '## Hints'/],
    ['an unknown section', VALID.replace('## Specs', '## Method'), /unknown section '## Method'/],
    ['an empty section', VALID.replace('Specs text.', ''), /section '## Specs' is empty/],
  ])('refuses a playbook with %s, naming the file', async (_, text, problem) => {
    const folder = await mkdtemp(join(tmpdir(), 'tally-playbooks-'));
    try {
      await writeFile(join(folder, 'good.md'), VALID);
      await writeFile(join(folder, 'trend-check.md'), text);
      const refusal = loadPlaybooks(folder);
      await expect(refusal).rejects.toThrow(PromptFileError);
      await expect(refusal).rejects.toThrow(problem);
      await expect(refusal).rejects.toThrow(/trend-check\.md is invalid/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('reads `about` as a list; every shipped playbook has one', () => {
    const about = parsePlaybook('x.md', VALID.replace('tags:', 'about: trends, time series\ntags:'));
    expect(about.about).toEqual(['trends', 'time series']);
    expect(parsePlaybook('x.md', VALID).about).toBeUndefined();
    for (const playbook of playbooks) expect(playbook.about?.length).toBeGreaterThan(0);
  });

  it('parses a valid file and skips README.md', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'tally-playbooks-'));
    try {
      await writeFile(join(folder, 'README.md'), '# not a playbook');
      await writeFile(join(folder, 'trend-check.md'), VALID);
      const [playbook, ...others] = await loadPlaybooks(folder);
      expect(others).toEqual([]);
      expect(playbook).toMatchObject({ file: 'trend-check.md', title: 'Trend check', tags: ['trend', 'time series'] });
      expect(parsePlaybook('x.md', VALID).sections.Specs).toBe('Specs text.');
      await expect(loadPlaybooks(join(folder, 'absent'))).rejects.toThrow(/playbooks folder is missing/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
