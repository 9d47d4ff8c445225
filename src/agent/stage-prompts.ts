/**
 * The stage prompts in prompts/stages/*.md: front matter with model parameters, then a template
 * with {{placeholders}}. Loaded and validated once at start-up; a broken file is a clear error.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { PromptFileError } from '../base/errors.js';
import { splitFrontMatter } from './front-matter.js';

export const STAGES = ['plan', 'act', 'review', 'answer'] as const;
export type Stage = (typeof STAGES)[number];

const frontMatter = z
  .object({
    stage: z.enum(STAGES),
    temperature: z.coerce.number().min(0).max(2).default(0.2),
    maxTokens: z.coerce.number().int().positive().default(1200),
    model: z.string().min(1).optional(),
  })
  .strict();

export interface StagePrompt {
  stage: Stage;
  temperature: number;
  maxTokens: number;
  model?: string;
  template: string;
}

export type StagePrompts = Record<Stage, StagePrompt>;

export const PROMPTS_DIR = join(import.meta.dirname, '..', '..', 'prompts');

export async function loadStagePrompts(folder = join(PROMPTS_DIR, 'stages')): Promise<StagePrompts> {
  const loaded: Partial<StagePrompts> = {};
  for (const stage of STAGES) {
    const file = join(folder, `${stage}.md`);
    const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new PromptFileError(file, error.code === 'ENOENT' ? 'the file is missing' : error.message);
    });
    const prompt = parseStagePrompt(file, text);
    if (prompt.stage !== stage) throw new PromptFileError(file, `its front matter says stage: ${prompt.stage}`);
    loaded[stage] = prompt;
  }
  return loaded as StagePrompts;
}

export function parseStagePrompt(file: string, text: string): StagePrompt {
  const { fields, body: template } = splitFrontMatter(file, text);
  const parsed = frontMatter.safeParse(fields);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'front matter'}: ${issue.message}`);
    throw new PromptFileError(file, problems.join('; '));
  }
  if (template === '') throw new PromptFileError(file, 'the prompt text is empty');
  return { ...parsed.data, template } as StagePrompt;
}

/** Fills {{name}} placeholders; unknown ones become empty, so an optional section can be left out. */
export function renderPrompt(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? '').replace(/\n{3,}/g, '\n\n');
}
