/**
 * The two forms tally opens in Slack: feedback for Revise, and the code of a held cell for Edit.
 * Slack caps a modal's text input at 3,000 characters; longer code is edited by a reply instead.
 */
import type { Block } from './slack-render.js';

export const REVISE_VIEW = 'tally.revise';
export const EDIT_VIEW = 'tally.edit';
export const MODAL_INPUT_CHARS = 3000;

/** What a modal carries to its submission: the thread and the control's value. */
export interface ModalContext {
  threadKey: string;
  value: string;
}

/** A modal with one multi-line text input, carrying its context to the submission. */
function textModal(
  callbackId: string,
  context: ModalContext,
  titles: { title: string; submit: string; label: string },
  field: string,
  initialValue?: string,
): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: callbackId,
    private_metadata: JSON.stringify(context),
    title: { type: 'plain_text', text: titles.title },
    submit: { type: 'plain_text', text: titles.submit },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: field,
        label: { type: 'plain_text', text: titles.label },
        element: {
          type: 'plain_text_input',
          action_id: field,
          multiline: true,
          max_length: MODAL_INPUT_CHARS,
          ...(initialValue !== undefined ? { initial_value: initialValue } : {}),
        },
      },
    ] satisfies Block[],
  };
}

export function reviseModal(context: ModalContext): Record<string, unknown> {
  const label = `What should change in ${context.value.split('@')[0]}?`;
  return textModal(REVISE_VIEW, context, { title: 'Revise section', submit: 'Send feedback', label }, 'feedback');
}

export function editModal(context: ModalContext, code: string): Record<string, unknown> {
  const titles = { title: 'Edit the cell', submit: 'Run this', label: 'Code to run instead' };
  return textModal(EDIT_VIEW, context, titles, 'code', code);
}

/** The text a person typed into a submitted modal's input. */
export function submittedText(values: unknown, block: string, action: string): string {
  const state = values as Record<string, Record<string, { value?: string | null }>> | undefined;
  return state?.[block]?.[action]?.value?.trim() ?? '';
}

export function parseModalContext(metadata: string): ModalContext | undefined {
  try {
    const parsed = JSON.parse(metadata) as Partial<ModalContext>;
    return typeof parsed.threadKey === 'string' && typeof parsed.value === 'string'
      ? { threadKey: parsed.threadKey, value: parsed.value }
      : undefined;
  } catch {
    return undefined;
  }
}
