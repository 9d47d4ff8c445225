/** Tools that use the session's kernel and the thread: run_python, ask_user, draft_section. */
import { z } from 'zod';
import type { Execution } from '../../ports/sandbox.js';
import { truncateForModel } from '../format-for-model.js';
import { defineTool } from '../tool.js';

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
    'Run Python in the session kernel (variables persist; pandas, numpy, matplotlib, scipy, statsmodels, sklearn). ' +
    'The last expression is shown; matplotlib figures are posted to the thread.',
  schema: z.object({ code: z.string().min(1) }),
  async execute({ code }, context) {
    const kernel = await context.kernel();
    const execution = await kernel.run(code, { signal: context.signal });
    if (!execution.error) await context.record({ kind: 'python', code });
    for (const [index, figure] of execution.figures.entries()) {
      await context.emit({
        kind: 'chart',
        title: `Figure ${index + 1}`,
        png: figure.png,
        alt: 'chart from the analysis',
      });
    }
    return { content: truncateForModel(describeExecution(execution)), failed: execution.error !== undefined };
  },
});

export const askUser = defineTool({
  name: 'ask_user',
  description:
    'Ask the user one short clarifying question (optionally with choices). The turn pauses until they answer.',
  schema: z.object({ question: z.string().min(1), choices: z.array(z.string().min(1)).max(5).optional() }),
  async execute({ question, choices }) {
    return { content: '(waiting for the user)', question: { text: question, ...(choices ? { choices } : {}) } };
  },
});

export const draftSection = defineTool({
  name: 'draft_section',
  description: 'Record a draft section of the analysis report (title and Markdown narrative).',
  schema: z.object({ title: z.string().min(1), markdown: z.string().min(1) }),
  async execute({ title, markdown }, context) {
    context.drafts.push({ title, markdown });
    await context.emit({ kind: 'text', markdown: `**Draft: ${title}**\n\n${markdown}` });
    return { content: `Draft '${title}' recorded (${context.drafts.length} so far).` };
  },
});
