/**
 * People using the bot's interactive surfaces: a slash command, a button (or select) click, a modal
 * submit. Each makes a fresh interaction (id + token, the 3-second and 15-minute clocks start now)
 * and dispatches INTERACTION_CREATE. As in Discord's client, users can only run registered commands
 * with their declared options, click components that are on the message (and not disabled), and
 * submit a modal the bot showed them; the submission mirrors the modal's layout (Label or legacy
 * action rows) and fills untouched inputs with their pre-set `value`.
 */
import { randomBytes } from 'node:crypto';
import type { DiscordChannel, DiscordInteraction, Json } from './discord-model.js';
import { interactionDispatch, wireMember, wireMessage, wireUser } from './payloads.js';
import { requireUserChannel, requireUserMessage, type UserActionContext } from './user-actions.js';

export interface InteractionHandle {
  id: string;
  token: string;
}

export async function startInteraction(
  context: UserActionContext,
  input: Omit<DiscordInteraction, 'id' | 'token' | 'createdAt' | 'responses'> & { data: Json; message?: Json },
): Promise<InteractionHandle> {
  const { state } = context;
  const { data, message, ...fields } = input;
  const id = state.nextId();
  const token = `aW50ZXJhY3Rpb24${randomBytes(48).toString('base64url')}`;
  const channel = requireUserChannel(state, input.channelId, 'interaction');
  state.ensureUser(input.user);
  state.interactions.set(id, { ...fields, id, token, createdAt: Date.now(), responses: [] });
  const payload = interactionDispatch(state, {
    id,
    token,
    type: input.type,
    userId: input.user,
    channel,
    data,
    ...(message === undefined ? {} : { message }),
  });
  await context.gateway.dispatch('INTERACTION_CREATE', payload);
  state.changed();
  return { id, token };
}

const OPTION_TYPES = { string: 3, integer: 4, boolean: 5, user: 6, channel: 7, role: 8, number: 10 } as const;

/** `options` by name → the wire options, typed by the registered command; plus `resolved` users and channels. */
function commandOptions(context: UserActionContext, command: Json, options: Record<string, string | number | boolean>) {
  const declared = (command.options as Json[] | undefined) ?? [];
  const resolved: { users?: Json; members?: Json; channels?: Json } = {};
  for (const option of declared) {
    if (option.required === true && !(String(option.name) in options)) {
      throw new Error(`Discord stand-in: /${String(command.name)} needs option "${String(option.name)}"`);
    }
  }
  const wire = Object.entries(options).map(([name, value]) => {
    const option = declared.find((candidate) => candidate.name === name);
    if (!option) {
      const names = declared.map((candidate) => String(candidate.name)).join(', ') || 'none';
      throw new Error(`Discord stand-in: /${String(command.name)} has no option "${name}" (declared: ${names})`);
    }
    const type = Number(option.type);
    if (type === OPTION_TYPES.user) {
      const user = context.state.ensureUser(String(value));
      resolved.users = { ...resolved.users, [user.id]: wireUser(user) };
      resolved.members = { ...resolved.members, [user.id]: wireMember(context.state, user.id, false) };
    }
    if (type === OPTION_TYPES.channel) {
      const channel = requireUserChannel(context.state, String(value), 'slashCommand');
      resolved.channels = { ...resolved.channels, [channel.id]: channel };
    }
    return { name, type, value };
  });
  return { options: wire, ...(Object.keys(resolved).length === 0 ? {} : { resolved }) };
}

/** The registered chat-input command `/name` (guild first, then global), as Discord's client offers it. */
export function registeredCommand(context: UserActionContext, name: string): Json {
  const { state } = context;
  const isChatInput = (command: Json) => command.name === name && Number(command.type ?? 1) === 1;
  const command =
    state.commands.get(state.ids.guildId)?.find(isChatInput) ?? state.commands.get('global')?.find(isChatInput);
  if (!command) {
    const registered = [...state.commands.values()].flat().map((candidate) => `/${String(candidate.name)}`);
    throw new Error(
      `Discord stand-in: /${name} is not registered (register it with client.application.commands.set); ` +
        `registered: ${registered.join(', ') || 'none'}`,
    );
  }
  return command;
}

export async function runSlashCommand(
  context: UserActionContext,
  input: { user: string; channel: string; name: string; options?: Record<string, string | number | boolean> },
): Promise<InteractionHandle> {
  const command = registeredCommand(context, input.name);
  const data = {
    id: command.id,
    name: input.name,
    type: 1,
    ...(command.guild_id === undefined ? {} : { guild_id: command.guild_id }),
    ...commandOptions(context, command, input.options ?? {}),
  };
  return startInteraction(context, { type: 2, user: input.user, channelId: input.channel, name: input.name, data });
}

/** Depth-first list of the components in a message or modal (rows, labels, containers, accessories). */
function flatten(components: unknown): Json[] {
  if (!Array.isArray(components)) return [];
  return components.flatMap((component: Json) => [
    component,
    ...flatten(component.components),
    ...flatten(component.component === undefined ? [] : [component.component]),
    ...flatten(component.accessory === undefined ? [] : [component.accessory]),
  ]);
}

export async function clickComponent(
  context: UserActionContext,
  input: { user: string; channel: string; messageId: string; customId: string; values?: string[] },
): Promise<InteractionHandle> {
  const { state } = context;
  const message = requireUserMessage(state, input.channel, input.messageId, 'click');
  if (message.ephemeralFor !== undefined && message.ephemeralFor !== input.user) {
    throw new Error(`Discord stand-in: click: message ${message.id} is ephemeral for user ${message.ephemeralFor}`);
  }
  const component = flatten(message.components).find((candidate) => candidate.custom_id === input.customId);
  if (!component) {
    const ids = flatten(message.components).flatMap((candidate) => (candidate.custom_id ? [candidate.custom_id] : []));
    throw new Error(
      `Discord stand-in: click: no component "${input.customId}" on message ${message.id} (has: ${ids.join(', ') || 'none'})`,
    );
  }
  if (component.disabled === true) throw new Error(`Discord stand-in: click: "${input.customId}" is disabled`);
  const data = {
    custom_id: input.customId,
    component_type: Number(component.type),
    ...(input.values === undefined ? {} : { values: input.values }),
  };
  return startInteraction(context, {
    type: 3,
    user: input.user,
    channelId: input.channel,
    customId: input.customId,
    messageId: message.id,
    data,
    message: wireMessage(state, message),
  });
}

/** The value a user submits for a modal input: theirs, or the pre-set one; checked like Discord's client does. */
function submittedValue(input: Json, fields: Record<string, string>): string {
  const id = String(input.custom_id);
  const value = fields[id] ?? (typeof input.value === 'string' ? input.value : '');
  const required = input.required !== false;
  if (required && value === '') throw new Error(`Discord stand-in: submitModal: "${id}" is required`);
  if (typeof input.max_length === 'number' && value.length > input.max_length) {
    throw new Error(`Discord stand-in: submitModal: "${id}" is longer than ${input.max_length}`);
  }
  if (typeof input.min_length === 'number' && value !== '' && value.length < input.min_length) {
    throw new Error(`Discord stand-in: submitModal: "${id}" is shorter than ${input.min_length}`);
  }
  return value;
}

/** The submitted components, in the modal's own layout, numbered depth-first as Discord numbers them. */
function submission(modal: Json, fields: Record<string, string>): Json[] {
  let next = 0;
  const id = () => {
    next += 1;
    return next;
  };
  const leaf = (component: Json): Json => {
    if (Number(component.type) !== 4) return { type: component.type, id: id() };
    return { type: 4, id: id(), custom_id: component.custom_id, value: submittedValue(component, fields) };
  };
  return ((modal.components as Json[] | undefined) ?? []).map((top) => {
    if (Number(top.type) === 18) return { type: 18, id: id(), component: leaf(top.component as Json) };
    if (Number(top.type) === 1) return { type: 1, id: id(), components: ((top.components as Json[]) ?? []).map(leaf) };
    return leaf(top);
  });
}

export async function submitShownModal(
  context: UserActionContext,
  input: { user: string; channel: string; customId: string; fields: Record<string, string> },
): Promise<InteractionHandle> {
  const { state } = context;
  const shown = [...state.interactions.values()]
    .filter((interaction) => interaction.user === input.user && interaction.modal?.custom_id === input.customId)
    .at(-1);
  if (!shown?.modal) {
    const open = [...state.interactions.values()].flatMap((interaction) =>
      interaction.modal ? [`"${String(interaction.modal.custom_id)}" (user ${interaction.user})`] : [],
    );
    throw new Error(
      `Discord stand-in: submitModal: no modal "${input.customId}" was shown to user ${input.user}; shown: ${open.join(', ') || 'none'}`,
    );
  }
  const inputs = flatten(shown.modal.components).filter((component) => Number(component.type) === 4);
  const unknown = Object.keys(input.fields).filter((name) => !inputs.some((component) => component.custom_id === name));
  if (unknown.length > 0)
    throw new Error(`Discord stand-in: submitModal: the modal has no input ${unknown.join(', ')}`);
  const origin = shown.messageId === undefined ? undefined : state.findMessage(shown.messageId);
  const channel: DiscordChannel = requireUserChannel(state, input.channel, 'submitModal');
  return startInteraction(context, {
    type: 5,
    user: input.user,
    channelId: channel.id,
    customId: input.customId,
    ...(origin ? { messageId: origin.id, message: wireMessage(state, origin) } : {}),
    data: { custom_id: input.customId, components: submission(shown.modal, input.fields) },
  });
}
