/**
 * Routes about the bot itself and its guild: `GET /gateway/bot` (the stand-in's own gateway URL),
 * `GET /users/@me`, `GET /applications/@me`, application commands (global and guild: list, bulk
 * overwrite, create, get, delete; ids kept across overwrites by name and type, as Discord does), and
 * guild, channel list, roles and member lookups.
 */
import type { Json } from './discord-model.js';
import type { DiscordState } from './discord-state.js';
import { guildCreateDispatch, wireMember, wireUser } from './payloads.js';
import { bodyObject, type RestContext, type RouteDefinition, type RouteRequest } from './rest-context.js';
import { errors, json, noContent } from './rest-reply.js';

const COMMAND_NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

/** The command scope of a route: `global`, or the guild id (which must be the stand-in's guild). */
function scopeOf(request: RouteRequest, state: DiscordState): string {
  if (request.params.applicationId !== state.ids.applicationId) throw errors.notYourApplication();
  const guildId = request.params.guildId;
  if (guildId === undefined) return 'global';
  if (guildId !== state.ids.guildId) throw errors.unknownGuild();
  return guildId;
}

function checkCommand(command: Json, path: string): void {
  const type = Number(command.type ?? 1);
  const name = typeof command.name === 'string' ? command.name : '';
  const chatInput = type === 1;
  if (!(chatInput ? COMMAND_NAME.test(name) && name === name.toLowerCase() : name.length >= 1 && name.length <= 32)) {
    throw errors.invalidFormBody(`${path}name`, 'APPLICATION_COMMAND_INVALID_NAME', `Command name is invalid: ${name}`);
  }
  const description = typeof command.description === 'string' ? command.description : '';
  if (chatInput && (description.length < 1 || description.length > 100)) {
    throw errors.invalidFormBody(`${path}description`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  }
  const options = Array.isArray(command.options) ? (command.options as Json[]) : [];
  for (const [index, option] of options.entries()) checkAutocomplete(option, `${path}options.${index}.`);
}

/** Autocomplete only on string, integer and number options, and never together with `choices`. */
function checkAutocomplete(option: Json, path: string): void {
  if (option.autocomplete !== true) return;
  if (![3, 4, 10].includes(Number(option.type))) {
    throw errors.invalidFormBody(`${path}autocomplete`, 'APPLICATION_COMMAND_OPTION_INVALID', 'Invalid option type');
  }
  if (Array.isArray(option.choices) && option.choices.length > 0) {
    throw errors.invalidFormBody(
      `${path}autocomplete`,
      'APPLICATION_COMMAND_AUTOCOMPLETE_CHOICES',
      'Autocomplete cannot be used together with choices',
    );
  }
}

/** A command as Discord returns it: the posted fields plus id, application_id, guild_id, version. */
function storedCommand(state: DiscordState, scope: string, command: Json, existing: Json[]): Json {
  const type = Number(command.type ?? 1);
  const same = existing.find((candidate) => candidate.name === command.name && candidate.type === type);
  return {
    name_localizations: null,
    description: '',
    description_localizations: null,
    options: [],
    default_member_permissions: null,
    nsfw: false,
    integration_types: [0],
    contexts: null,
    ...command,
    type,
    id: same?.id ?? state.nextId(),
    application_id: state.ids.applicationId,
    ...(scope === 'global' ? {} : { guild_id: scope }),
    version: state.nextId(),
  };
}

function commandRoutes(base: string): RouteDefinition[] {
  const find = (request: RouteRequest, { state }: RestContext) => {
    const list = state.commands.get(scopeOf(request, state)) ?? [];
    const command = list.find((candidate) => candidate.id === request.params.commandId);
    if (!command) throw errors.unknownCommand();
    return { list, command };
  };
  return [
    {
      method: 'GET',
      template: base,
      auth: true,
      handle: (request, { state }) => json(state.commands.get(scopeOf(request, state)) ?? []),
    },
    {
      method: 'PUT',
      template: base,
      auth: true,
      handle: (request, { state }) => {
        const scope = scopeOf(request, state);
        const bodies = Array.isArray(request.json) ? (request.json as Json[]) : [];
        for (const [index, command] of bodies.entries()) checkCommand(command, `${index}.`);
        const existing = state.commands.get(scope) ?? [];
        const commands = bodies.map((command) => storedCommand(state, scope, command, existing));
        state.commands.set(scope, commands);
        state.changed();
        return json(commands);
      },
    },
    {
      method: 'POST',
      template: base,
      auth: true,
      handle: (request, { state }) => {
        const scope = scopeOf(request, state);
        const body = bodyObject(request);
        checkCommand(body, '');
        const existing = state.commands.get(scope) ?? [];
        const command = storedCommand(state, scope, body, existing);
        state.commands.set(scope, [...existing.filter((candidate) => candidate.id !== command.id), command]);
        state.changed();
        return json(command, existing.some((candidate) => candidate.id === command.id) ? 200 : 201);
      },
    },
    {
      method: 'GET',
      template: `${base}/:commandId`,
      auth: true,
      handle: (request, context) => json(find(request, context).command),
    },
    {
      method: 'DELETE',
      template: `${base}/:commandId`,
      auth: true,
      handle: (request, context) => {
        const { list, command } = find(request, context);
        context.state.commands.set(
          scopeOf(request, context.state),
          list.filter((candidate) => candidate !== command),
        );
        context.state.changed();
        return noContent();
      },
    },
  ];
}

function requireGuild(state: DiscordState, id: string | undefined): void {
  if (id !== state.ids.guildId) throw errors.unknownGuild();
}

export const applicationRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    template: '/gateway/bot',
    auth: true,
    handle: (_request, { gatewayUrl }) =>
      json({
        url: gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 },
      }),
  },
  { method: 'GET', template: '/gateway', auth: false, handle: (_request, { gatewayUrl }) => json({ url: gatewayUrl }) },
  { method: 'GET', template: '/users/@me', auth: true, handle: (_request, { state }) => json(wireUser(state.bot())) },
  {
    method: 'GET',
    template: '/users/:userId',
    auth: true,
    handle: ({ params }, { state }) => {
      const user = state.users.get(params.userId ?? '');
      if (!user) throw errors.unknownUser();
      return json(wireUser(user));
    },
  },
  {
    method: 'GET',
    template: '/applications/@me',
    auth: true,
    handle: (_request, { state }) =>
      json({
        id: state.ids.applicationId,
        name: state.ids.botUsername,
        icon: null,
        description: '',
        bot_public: false,
        bot_require_code_grant: false,
        bot: wireUser(state.bot()),
        owner: wireUser(state.ensureUser(state.ids.ownerId)),
        team: null,
        verify_key: '0'.repeat(64),
        flags: 0,
        approximate_guild_count: 1,
        tags: [],
        integration_types_config: { '0': {} },
      }),
  },
  ...commandRoutes('/applications/:applicationId/commands'),
  ...commandRoutes('/applications/:applicationId/guilds/:guildId/commands'),
  {
    method: 'GET',
    template: '/guilds/:guildId',
    auth: true,
    handle: ({ params }, { state }) => {
      requireGuild(state, params.guildId);
      const { channels: _channels, threads: _threads, members: _members, ...guild } = guildCreateDispatch(state);
      return json(guild);
    },
  },
  {
    method: 'GET',
    template: '/guilds/:guildId/channels',
    auth: true,
    handle: ({ params }, { state }) => {
      requireGuild(state, params.guildId);
      return json([...state.channels.values()].filter((channel) => !state.isThread(channel)));
    },
  },
  {
    method: 'GET',
    template: '/guilds/:guildId/roles',
    auth: true,
    handle: ({ params }, { state }) => {
      requireGuild(state, params.guildId);
      return json((guildCreateDispatch(state).roles as Json[]) ?? []);
    },
  },
  {
    method: 'GET',
    template: '/guilds/:guildId/members/:userId',
    auth: true,
    handle: ({ params }, { state }) => {
      requireGuild(state, params.guildId);
      if (!state.users.has(params.userId ?? '')) throw errors.unknownMember();
      return json(wireMember(state, params.userId ?? ''));
    },
  },
];
