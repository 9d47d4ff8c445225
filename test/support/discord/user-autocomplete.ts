/**
 * A person typing into a slash command option that autocompletes: INTERACTION_CREATE type 4
 * (APPLICATION_COMMAND_AUTOCOMPLETE) with the options typed so far and the one being typed marked
 * `focused` (its value is the text typed, a string even for number options, as Discord sends it).
 * Required options may be missing; the focused one must be declared with `autocomplete: true`. The
 * bot answers with callback type 8 (APPLICATION_COMMAND_AUTOCOMPLETE_RESULT) within the 3-second
 * window; interaction-routes.ts checks the answer (at most 25 choices, names and string values of
 * 1–100 characters, values of the option's type).
 */
import type { Json } from './discord-model.js';
import type { UserActionContext } from './user-actions.js';
import { type InteractionHandle, registeredCommand, startInteraction } from './user-interactions.js';

export interface AutocompleteInput {
  user: string;
  channel: string;
  /** The command, e.g. `analyze`. */
  name: string;
  /** The option being typed. */
  focused: string;
  /** What is typed into it so far. */
  typed: string;
  /** Other options already filled in. */
  options?: Record<string, string | number | boolean>;
}

/** The declared option `name` of `command`, or an error naming those it has. */
function declaredOption(command: Json, name: string): Json {
  const declared = (command.options as Json[] | undefined) ?? [];
  const option = declared.find((candidate) => candidate.name === name);
  if (!option) {
    const names = declared.map((candidate) => String(candidate.name)).join(', ') || 'none';
    throw new Error(`Discord stand-in: /${String(command.name)} has no option "${name}" (declared: ${names})`);
  }
  return option;
}

export async function typeIntoOption(context: UserActionContext, input: AutocompleteInput): Promise<InteractionHandle> {
  const command = registeredCommand(context, input.name);
  const focused = declaredOption(command, input.focused);
  if (focused.autocomplete !== true) {
    throw new Error(
      `Discord stand-in: /${input.name} ${input.focused} does not autocomplete (Discord's client sends no type 4 for it)`,
    );
  }
  const filled = Object.entries(input.options ?? {}).map(([name, value]) => ({
    name,
    type: Number(declaredOption(command, name).type),
    value,
  }));
  const data = {
    id: command.id,
    name: input.name,
    type: 1,
    ...(command.guild_id === undefined ? {} : { guild_id: command.guild_id }),
    options: [...filled, { name: input.focused, type: Number(focused.type), value: input.typed, focused: true }],
  };
  return startInteraction(context, {
    type: 4,
    user: input.user,
    channelId: input.channel,
    name: input.name,
    focused,
    data,
  });
}

/** Choice values must fit the option: strings of at most 100 characters, numbers for number options. */
export function choiceProblem(option: Json | undefined, choices: unknown): string | undefined {
  if (!Array.isArray(choices)) return 'data.choices must be an array';
  if (choices.length > 25) return `data.choices has ${choices.length} choices; at most 25 are allowed`;
  for (const [index, choice] of (choices as Json[]).entries()) {
    const name = typeof choice.name === 'string' ? choice.name : '';
    if (name.length < 1 || name.length > 100) return `data.choices.${index}.name must be 1-100 characters`;
    const type = Number(option?.type ?? 3);
    if (type === 3 && (typeof choice.value !== 'string' || choice.value.length > 100)) {
      return `data.choices.${index}.value must be a string of at most 100 characters`;
    }
    if ((type === 4 || type === 10) && typeof choice.value !== 'number') {
      return `data.choices.${index}.value must be a number`;
    }
  }
  return undefined;
}
