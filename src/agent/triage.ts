/**
 * Triage, folded into the turn's first act request: the model calls `triage` first when a new request is
 * ambiguous (the thread gets its question), when the data cannot answer it (the turn ends with a decline that
 * names what is missing), or when it takes several steps (it is given the playbook that fits and a plan, as
 * messages after the call). A clear one-step request needs no triage: the model starts the work, no request is
 * spent on deciding that, and no method is given to a lookup.
 */
import { z } from 'zod';
import { defineTool } from './tool.js';

const decision = z.object({
  verdict: z.enum(['answerable', 'ambiguous', 'out_of_scope']),
  reason: z.string().optional(),
  question: z.string().optional(),
  choices: z.array(z.string()).max(5).optional(),
  multi_step: z.boolean().optional(),
});

export type TriageDecision = z.infer<typeof decision>;

/** What the model reads after a triage that lets the work go on. */
export const GO_ON = 'Go on with the work.';

export const triageTool = defineTool({
  name: 'triage',
  description: 'First call on an ambiguous, out-of-scope or multi-step request.',
  schema: decision,
  async execute(value, context) {
    if (value.verdict === 'ambiguous' && value.question) {
      const choices = value.choices && value.choices.length > 0 ? { choices: value.choices } : {};
      const multiStep = value.multi_step ? { multiStep: true as const } : {};
      return {
        content: '(waiting for the user)',
        pause: { kind: 'question', text: value.question, ...choices, ...multiStep },
      };
    }
    if (value.verdict === 'out_of_scope') {
      return {
        content: 'The user was told the data cannot answer this request.',
        end: { kind: 'out_of_scope', reason: value.reason ?? 'it is not in these databases' },
      };
    }
    const messages = value.multi_step && context.guidance ? await context.guidance() : [];
    return messages.length > 0 ? { content: `${GO_ON} What to follow comes next.`, messages } : { content: GO_ON };
  },
});
