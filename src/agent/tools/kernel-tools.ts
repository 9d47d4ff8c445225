/** Tools that use the session's kernel and the thread: run_python, ask_user, draft_section. */
import { z } from 'zod';
import type { Execution } from '../../ports/sandbox.js';
import { ReviewError } from '../../report/report.js';
import { truncateForModel } from '../format-for-model.js';
import { callOf, type DraftedSection, defineTool } from '../tool.js';

/** What the model reads back from a cell: output, value, error with traceback, and what happened. */
export function describeExecution(execution: Execution): string {
  const parts: string[] = [];
  if (execution.stdout) parts.push(`stdout:\n${execution.stdout.trimEnd()}`);
  if (execution.stderr) parts.push(`stderr:\n${execution.stderr.trimEnd()}`);
  if (execution.result) parts.push(`result (${execution.result.type}):\n${execution.result.text}`);
  if (execution.figures.length > 0) parts.push(`${execution.figures.length} figure(s) posted to the thread`);
  if (execution.error) {
    parts.push(`error: ${execution.error.name}: ${execution.error.value}`);
    if (execution.error.traceback) parts.push(execution.error.traceback.trimEnd());
  }
  if (execution.restarted)
    parts.push(`(the kernel was restarted; ${execution.restarted.replayedCells} earlier cells replayed)`);
  return parts.length > 0 ? parts.join('\n') : '(no output)';
}

export const runPython = defineTool({
  name: 'run_python',
  description:
    'Python in the kernel (pandas, numpy, matplotlib, scipy, statsmodels, sklearn): shows the last expression, ' +
    'posts figures.',
  schema: z.object({ code: z.string().min(1) }),
  async execute({ code }, context) {
    const kernel = await context.kernel();
    const execution = await kernel.run(code, { signal: context.signal });
    const ok = execution.error === undefined;
    if (ok) await context.record({ kind: 'python', code });
    const figures = execution.figures.map((figure, index) => ({
      png: figure.png,
      title: figure.title ?? `Figure ${index + 1}`,
      alt: figure.description ?? 'chart from the analysis',
    }));
    for (const figure of figures) await context.emit({ kind: 'chart', ...figure });
    const described = describeExecution(execution);
    await context.work.addCell(
      { language: 'python', code, output: truncateForModel(described, 2000), ...callOf(context) },
      figures,
      ok,
      context.author,
    );
    return { content: truncateForModel(described), failed: !ok };
  },
});

export const askUser = defineTool({
  name: 'ask_user',
  description: 'Asks the user one short question; waits for the answer.',
  schema: z.object({ question: z.string().min(1), choices: z.array(z.string().min(1)).max(5).optional() }),
  async execute({ question, choices }) {
    return {
      content: '(waiting for the user)',
      pause: { kind: 'question', text: question, ...(choices ? { choices } : {}) },
    };
  },
});

export const draftSection = defineTool({
  name: 'draft_section',
  description: 'One report section for review (evidence: the cells and charts since the last); waits for the decision.',
  schema: z.object({
    title: z.string().min(1),
    markdown: z.string().min(1),
    stage: z.string().min(1).optional(),
    revises: z.string().min(1).optional().describe('section id, e.g. s1'),
  }),
  async execute({ title, markdown, stage, revises }, context) {
    const verdict = context.reviewFigures ? await context.reviewFigures(markdown, 'section') : undefined;
    if (verdict?.kind === 'redo') return { content: verdict.note };
    let drafted: DraftedSection;
    try {
      drafted = await context.work.draft({
        title,
        narrative: markdown,
        ...(stage ? { stage } : {}),
        ...(revises ? { revises } : {}),
        ...(verdict ? { checks: verdict.checks } : {}),
      });
    } catch (error) {
      if (error instanceof ReviewError) return { content: error.message, failed: true };
      throw error;
    }
    await context.emit({
      kind: 'review',
      id: drafted.section,
      version: drafted.version,
      title: drafted.title,
      ...(drafted.stage ? { stage: drafted.stage } : {}),
      markdown: verdict?.markdown ?? drafted.narrative,
      figures: drafted.figures,
      cells: drafted.cells.map(({ language, code, author }) => ({ language, code, author })),
      controls: ['accept', 'revise', 'discard'],
    });
    return {
      content: `Section ${drafted.section} version ${drafted.version} is posted for review.`,
      pause: { kind: 'review', section: drafted.section, version: drafted.version },
    };
  },
});
