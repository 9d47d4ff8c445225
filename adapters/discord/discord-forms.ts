/**
 * The forms (modals) tally opens in Discord: feedback for Revise, and the code of a held cell for
 * Edit. A modal text input holds at most 4,000 characters; longer code is edited by a reply.
 */
import { LabelBuilder, ModalBuilder, TextInputBuilder, TextInputStyle } from 'discord.js';

export const REVISE_FORM = 'tally.revise';
export const EDIT_FORM = 'tally.edit';
export const FORM_INPUT_CHARS = 4000;

export function reviseForm(value: string): ModalBuilder {
  return new ModalBuilder()
    .setCustomId(`${REVISE_FORM}|${value}`)
    .setTitle('Revise section')
    .addLabelComponents(
      new LabelBuilder()
        .setLabel(`What should change in ${value.split('@')[0]}?`)
        .setTextInputComponent(
          new TextInputBuilder()
            .setCustomId('feedback')
            .setStyle(TextInputStyle.Paragraph)
            .setRequired(true)
            .setMaxLength(FORM_INPUT_CHARS),
        ),
    );
}

export function editForm(value: string, code: string): ModalBuilder {
  return new ModalBuilder()
    .setCustomId(`${EDIT_FORM}|${value}`)
    .setTitle('Edit the cell')
    .addLabelComponents(
      new LabelBuilder()
        .setLabel('Code to run instead')
        .setTextInputComponent(
          new TextInputBuilder()
            .setCustomId('code')
            .setStyle(TextInputStyle.Paragraph)
            .setRequired(true)
            .setMaxLength(FORM_INPUT_CHARS)
            .setValue(code),
        ),
    );
}
