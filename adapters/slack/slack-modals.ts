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

export function reviseModal(context: ModalContext): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: REVISE_VIEW,
    private_metadata: JSON.stringify(context),
    title: { type: 'plain_text', text: 'Revise section' },
    submit: { type: 'plain_text', text: 'Send feedback' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: 'feedback',
        label: { type: 'plain_text', text: `What should change in ${context.value.split('@')[0]}?` },
        element: { type: 'plain_text_input', action_id: 'feedback', multiline: true, max_length: MODAL_INPUT_CHARS },
      },
    ] satisfies Block[],
  };
}

export function editModal(context: ModalContext, code: string): Record<string, unknown> {
  return {
    type: 'modal',
    callback_id: EDIT_VIEW,
    private_metadata: JSON.stringify(context),
    title: { type: 'plain_text', text: 'Edit the cell' },
    submit: { type: 'plain_text', text: 'Run this' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: 'code',
        label: { type: 'plain_text', text: 'Code to run instead' },
        element: {
          type: 'plain_text_input',
          action_id: 'code',
          multiline: true,
          initial_value: code,
          max_length: MODAL_INPUT_CHARS,
        },
      },
    ] satisfies Block[],
  };
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
