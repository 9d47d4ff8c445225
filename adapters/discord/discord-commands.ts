/**
 * tally's slash commands, and what each one means as a message in a thread: `/analyze` starts a
 * session in a new thread; `/report`, `/settings`, `/reset` and `/stop` act on the thread they are
 * used in, as the typed commands do. `/analyze`'s question and `/settings`' values autocomplete
 * (see discord-autocomplete.ts): Discord forbids fixed `choices` on an option that autocompletes, so
 * the allowed values live here and a typed value outside them is refused before it reaches tally.
 */
import { SlashCommandBuilder } from 'discord.js';

/** The values each `/settings` option takes, with a few words on each (the agent's settings). */
export const SETTING_VALUES: Record<string, Record<string, string>> = {
  decompose: { auto: 'plan when the request takes several steps', on: 'always plan first', off: 'never plan' },
  cot: { on: 'brief reasoning before each step', off: 'no reasoning shown' },
  review: { on: 'the model reviews code before it runs', off: 'no code review' },
  approve: { never: 'run every cell', risky: 'ask before risky cells', always: 'ask before every cell' },
};

/** Temperatures offered for `/settings temperature` (any value from 0 to 2 is taken). */
export const TEMPERATURES: Record<string, string> = {
  '0': 'most repeatable',
  '0.2': 'steady',
  '0.5': 'balanced',
  '0.7': 'varied',
  '1': 'creative',
};

const SETTING_DESCRIPTIONS: Record<string, string> = {
  decompose: 'Plan first',
  cot: 'Brief reasoning before each step',
  review: 'Review code before it runs',
  approve: 'Which cells wait for approval',
};

const settings = new SlashCommandBuilder()
  .setName('settings')
  .setDescription("Change this thread's settings")
  .addNumberOption((option) =>
    option
      .setName('temperature')
      .setDescription('Model temperature')
      .setMinValue(0)
      .setMaxValue(2)
      .setAutocomplete(true),
  );
for (const [name, description] of Object.entries(SETTING_DESCRIPTIONS)) {
  settings.addStringOption((option) => option.setName(name).setDescription(description).setAutocomplete(true));
}

export const SLASH_COMMANDS = [
  new SlashCommandBuilder()
    .setName('analyze')
    .setDescription('Ask tally to analyse your data; the work happens in a new thread')
    .addStringOption((option) =>
      option
        .setName('question')
        .setDescription('What you want to know')
        .setRequired(true)
        .setMaxLength(1800)
        .setAutocomplete(true),
    ),
  new SlashCommandBuilder().setName('report').setDescription("Export this thread's report (Markdown, HTML, notebook)"),
  settings,
  new SlashCommandBuilder().setName('reset').setDescription('A fresh kernel for this thread (variables are dropped)'),
  new SlashCommandBuilder().setName('stop').setDescription('Stop what tally is doing in this thread'),
].map((command) => command.toJSON());

/** What is wrong with a `/settings` value typed instead of picked, if anything. */
export function settingProblem(name: string, value: unknown): string | undefined {
  const allowed = SETTING_VALUES[name];
  if (!allowed || Object.hasOwn(allowed, String(value))) return undefined;
  return `\`${name}\` is one of ${Object.keys(allowed).join(', ')} (not \`${String(value)}\`).`;
}

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
