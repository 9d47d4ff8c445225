import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStagePrompts, parseStagePrompt, renderPrompt, STAGES } from '../../src/agent/stage-prompts.js';
import { PromptFileError } from '../../src/base/errors.js';

describe('stage prompts', () => {
  it('loads every shipped stage with its parameters', async () => {
    const prompts = await loadStagePrompts();
    expect(Object.keys(prompts).sort()).toEqual([...STAGES].sort());
    expect(prompts.plan).toMatchObject({ stage: 'plan', temperature: 0.2, maxTokens: 800 });
    expect(prompts.act.template).toContain('`triage`');
    expect(prompts.act.template).toContain('{{schema}}');
  });

  it.each([
    ['no front matter', 'Just text', /must start with front matter/],
    ['a bad value', '---\nstage: act\ntemperature: hot\nmaxTokens: 10\n---\nx', /temperature/],
    ['an unknown stage', '---\nstage: summary\n---\nx', /stage/],
    ['an unknown key', '---\nstage: act\ntemperature: 0\nmaxTokens: 10\ncolour: red\n---\nx', /colour/],
    ['an empty prompt', '---\nstage: act\ntemperature: 0\nmaxTokens: 10\n---\n', /empty/],
  ])('refuses a file with %s, naming the file', (_, text, problem) => {
    expect(() => parseStagePrompt('prompts/stages/act.md', text)).toThrow(PromptFileError);
    expect(() => parseStagePrompt('prompts/stages/act.md', text)).toThrow(problem);
    expect(() => parseStagePrompt('prompts/stages/act.md', text)).toThrow(/prompts\/stages\/act\.md/);
  });

  it('says which file is missing or names another stage', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'tally-prompts-'));
    try {
      await expect(loadStagePrompts(folder)).rejects.toThrow(/plan\.md is invalid: the file is missing/);
      const body = '---\nstage: plan\ntemperature: 0\nmaxTokens: 10\n---\ntext';
      for (const stage of STAGES) await writeFile(join(folder, `${stage}.md`), body.replace('plan', stage));
      await writeFile(join(folder, 'review.md'), body);
      await expect(loadStagePrompts(folder)).rejects.toThrow(
        /review\.md is invalid: its front matter says stage: plan/,
      );
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('fills placeholders and drops unknown ones', () => {
    expect(renderPrompt('A {{schema}}\n\n\n{{missing}}\nB', { schema: 'tables' })).toBe('A tables\n\nB');
  });
});
