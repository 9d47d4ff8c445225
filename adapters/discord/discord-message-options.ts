/**
 * A rendered Discord message (`DiscordOp` of kind `message`) as discord.js send options: the
 * attachments with their descriptions, one row of at most five buttons, and no pings.
 */
import { ActionRowBuilder, AttachmentBuilder, ButtonBuilder, ButtonStyle, type MessageCreateOptions } from 'discord.js';
import type { DiscordButton, DiscordOp } from './discord-render.js';

const STYLES: Record<DiscordButton['style'], ButtonStyle> = {
  primary: ButtonStyle.Primary,
  secondary: ButtonStyle.Secondary,
  success: ButtonStyle.Success,
  danger: ButtonStyle.Danger,
};

export function messageOptions(op: Extract<DiscordOp, { kind: 'message' }>): MessageCreateOptions {
  const files = (op.files ?? []).map(
    (file) =>
      new AttachmentBuilder(file.content, {
        name: file.name,
        ...(file.description ? { description: file.description } : {}),
      }),
  );
  const buttons = (op.buttons ?? [])
    .slice(0, 5)
    .map((button) =>
      new ButtonBuilder().setCustomId(button.customId).setLabel(button.label).setStyle(STYLES[button.style]),
    );
  return {
    ...(op.content ? { content: op.content } : {}),
    ...(files.length > 0 ? { files } : {}),
    ...(buttons.length > 0 ? { components: [new ActionRowBuilder<ButtonBuilder>().addComponents(buttons)] } : {}),
    allowedMentions: { parse: [] },
  };
}
