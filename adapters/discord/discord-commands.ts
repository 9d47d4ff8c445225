/**
 * tally's slash commands, and what each one means as a message in a thread: `/analyze` starts a
 * session in a new thread; `/report`, `/settings`, `/reset` and `/stop` act on the thread they are
 * used in, as the typed commands do.
 */
import { SlashCommandBuilder } from 'discord.js';

const onOff = [
  { name: 'on', value: 'on' },
  { name: 'off', value: 'off' },
];

export const SLASH_COMMANDS = [
  new SlashCommandBuilder()
    .setName('analyze')
    .setDescription('Ask tally to analyse your data; the work happens in a new thread')
    .addStringOption((option) =>
      option.setName('question').setDescription('What you want to know').setRequired(true).setMaxLength(1800),
    ),
  new SlashCommandBuilder().setName('report').setDescription("Export this thread's report (Markdown, HTML, notebook)"),
  new SlashCommandBuilder()
    .setName('settings')
    .setDescription("Change this thread's settings")
    .addNumberOption((option) =>
      option.setName('temperature').setDescription('Model temperature').setMinValue(0).setMaxValue(2),
    )
    .addStringOption((option) =>
      option
        .setName('decompose')
        .setDescription('Plan first')
        .addChoices({ name: 'auto', value: 'auto' }, ...onOff),
    )
    .addStringOption((option) =>
      option
        .setName('cot')
        .setDescription('Brief reasoning before each step')
        .addChoices(...onOff),
    )
    .addStringOption((option) =>
      option
        .setName('review')
        .setDescription('Review code before it runs')
        .addChoices(...onOff),
    )
    .addStringOption((option) =>
      option
        .setName('approve')
        .setDescription('Which cells wait for approval')
        .addChoices(
          { name: 'never', value: 'never' },
          { name: 'risky', value: 'risky' },
          { name: 'always', value: 'always' },
        ),
    ),
  new SlashCommandBuilder().setName('reset').setDescription('A fresh kernel for this thread (variables are dropped)'),
  new SlashCommandBuilder().setName('stop').setDescription('Stop what tally is doing in this thread'),
].map((command) => command.toJSON());

/** The thread message a command in a thread stands for; undefined for /analyze and unknown ones. */
export function commandText(name: string, options: Array<{ name: string; value?: unknown }>): string | undefined {
  if (name === 'report') return 'report';
  if (name === 'reset') return 'reset';
  if (name === 'stop') return 'stop';
  if (name === 'settings') {
    const pairs = options
      .filter((option) => option.value !== undefined)
      .map((option) => `${option.name}=${String(option.value)}`);
    return pairs.length > 0 ? `set ${pairs.join(' ')}` : undefined;
  }
  return undefined;
}
