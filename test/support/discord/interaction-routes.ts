/**
 * Answering interactions: `POST /interactions/{id}/{token}/callback` (4 reply, 5 defer, 6 deferUpdate,
 * 7 update, 8 autocomplete result, 9 modal) and the interaction webhook `/webhooks/{app}/{token}` (`@original` edit, fetch,
 * delete; follow-ups). Discord's rules: one initial response, within `initialResponseMs` (3 s), else
 * 10062 Unknown interaction; a second one is 40060; a modal only as the initial response and not to a
 * modal submit; webhook calls work for `interactionTokenTtlMs` (15 min), then 50027 Invalid Webhook
 * Token. An autocomplete interaction takes only type 8, with at most 25 fitting choices, and has no
 * webhook. A deferred reply is a real "thinking…" message (flag LOADING, 128) that `@original` edits
 * turn into the answer; the first follow-up after a defer edits it too (documented backwards compat).
 */
import { requireChannel } from './channel-routes.js';
import type { DiscordInteraction, DiscordMessage, Json } from './discord-model.js';
import type { DiscordState } from './discord-state.js';
import { applyMessageEdit, buildBotMessage } from './message-body.js';
import { messageDeleteDispatch, messageDispatch, wireMessage, wireUser } from './payloads.js';
import { bodyObject, type RestContext, type RouteDefinition, type RouteRequest } from './rest-context.js';
import { errors, json, noContent, RestError, type RestReply } from './rest-reply.js';
import { choiceProblem } from './user-autocomplete.js';

const EPHEMERAL = 64;
const LOADING = 128;
const Callback = { Reply: 4, Defer: 5, DeferUpdate: 6, Update: 7, AutocompleteResult: 8, Modal: 9 } as const;
const AUTOCOMPLETE = 4;

/** An autocomplete interaction is answered with its choices (type 8) and nothing else. */
function autocompleteResult(interaction: DiscordInteraction, type: number, data: Json): void {
  if (interaction.type !== AUTOCOMPLETE || type !== Callback.AutocompleteResult) {
    throw errors.invalidFormBody('type', 'INTERACTION_RESPONSE_TYPE_INVALID', `Invalid response type ${type}`);
  }
  const problem = choiceProblem(interaction.focused, data.choices);
  if (problem) throw errors.invalidFormBody('data.choices', 'BASE_TYPE_BAD_LENGTH', problem);
}

/** The interaction's message fields: who triggered it, through which webhook. */
function interactionFields(state: DiscordState, interaction: DiscordInteraction, flags: number): Json {
  return {
    type: interaction.type === 2 ? 20 : 0,
    flags,
    webhook_id: state.ids.applicationId,
    application_id: state.ids.applicationId,
    interaction_metadata: {
      id: interaction.id,
      type: interaction.type,
      user: wireUser(state.ensureUser(interaction.user)),
      authorizing_integration_owners: { '0': state.ids.guildId },
      ...(interaction.name === undefined ? {} : { name: interaction.name, command_type: 1 }),
      ...(interaction.type === 3 && interaction.messageId ? { interacted_message_id: interaction.messageId } : {}),
    },
    ...(flags & EPHEMERAL ? { ephemeralFor: interaction.user } : {}),
  };
}

/** Stores a message the interaction created; everyone but the user sees nothing of an ephemeral one. */
function post(context: RestContext, message: DiscordMessage): DiscordMessage {
  context.state.addMessage(message);
  if (message.ephemeralFor === undefined) context.emit('MESSAGE_CREATE', messageDispatch(context.state, message));
  return message;
}

function edited(context: RestContext, message: DiscordMessage): DiscordMessage {
  if (message.ephemeralFor === undefined) context.emit('MESSAGE_UPDATE', messageDispatch(context.state, message));
  return message;
}

/** Runs `act`, recording the outcome (success or Discord error) on the interaction. */
function recorded(
  context: RestContext,
  interaction: DiscordInteraction,
  entry: Pick<DiscordInteraction['responses'][number], 'kind' | 'body'> & { type?: number },
  act: () => { reply: RestReply; messageId?: string | undefined },
): RestReply {
  const base = { ...entry, at: Date.now() };
  try {
    const { reply, messageId } = act();
    interaction.responses.push({ ...base, status: reply.status, ...(messageId ? { messageId } : {}) });
    return reply;
  } catch (error) {
    if (error instanceof RestError) interaction.responses.push({ ...base, status: error.status, code: error.code });
    throw error;
  } finally {
    context.state.changed();
  }
}

function callback(request: RouteRequest, context: RestContext): RestReply {
  const { state, limits } = context;
  const interaction = state.interactions.get(request.params.interactionId ?? '');
  if (!interaction || interaction.token !== request.params.token) throw errors.unknownInteraction();
  const body = bodyObject(request);
  const type = Number(body.type);
  const data = (body.data ?? {}) as Json;
  return recorded(context, interaction, { kind: 'callback', type, body }, () => {
    if (interaction.initialResponse !== undefined) throw errors.alreadyAcknowledged();
    if (Date.now() - interaction.createdAt > limits.initialResponseMs) throw errors.unknownInteraction();
    const channelId = requireChannel(state, interaction.channelId).id;
    if (interaction.type === AUTOCOMPLETE || type === Callback.AutocompleteResult) {
      autocompleteResult(interaction, type, data);
      interaction.initialResponse = type;
      return { reply: noContent() };
    }
    let message: DiscordMessage | undefined;
    const onComponent = interaction.messageId !== undefined;
    if (type === Callback.Reply || type === Callback.Defer) {
      const deferred = type === Callback.Defer;
      const flags = deferred ? (Number(data.flags ?? 0) & EPHEMERAL) | LOADING : Number(data.flags ?? 0);
      const extra = interactionFields(state, interaction, flags);
      const files = deferred ? [] : request.files;
      const input = { channelId, body: deferred ? {} : data, files, extra, allowEmpty: deferred };
      message = post(context, buildBotMessage(context, input));
      interaction.originalMessageId = message.id;
    } else if ((type === Callback.DeferUpdate || type === Callback.Update) && onComponent) {
      message = state.findMessage(interaction.messageId ?? '');
      if (!message) throw errors.unknownMessage();
      if (type === Callback.Update) edited(context, applyMessageEdit(context, message, data, request.files));
      interaction.originalMessageId = message.id;
    } else if (type === Callback.Modal && interaction.type !== 5) {
      if (typeof data.custom_id !== 'string' || !Array.isArray(data.components) || data.components.length === 0) {
        throw errors.invalidFormBody('data.components', 'BASE_TYPE_REQUIRED', 'This field is required');
      }
      interaction.modal = data;
    } else {
      throw errors.invalidFormBody('type', 'INTERACTION_RESPONSE_TYPE_INVALID', `Invalid response type ${type}`);
    }
    interaction.initialResponse = type;
    const reply =
      request.query.get('with_response') === 'true' ? withResponse(state, interaction, type, message) : noContent();
    return { reply, messageId: message?.id };
  });
}

/** `?with_response=true`: the interaction callback response object. */
function withResponse(state: DiscordState, interaction: DiscordInteraction, type: number, message?: DiscordMessage) {
  return json({
    interaction: {
      id: interaction.id,
      type: interaction.type,
      ...(message
        ? {
            response_message_id: message.id,
            response_message_loading: (message.flags & LOADING) !== 0,
            response_message_ephemeral: message.ephemeralFor !== undefined,
          }
        : {}),
    },
    resource: { type, ...(message ? { message: wireMessage(state, message) } : {}) },
  });
}

/** The interaction behind `/webhooks/{app}/{token}`, if the token still works. */
function webhookInteraction(request: RouteRequest, context: RestContext): DiscordInteraction {
  const { state, limits } = context;
  if (request.params.applicationId !== state.ids.applicationId) throw errors.unknownWebhook();
  const interaction = [...state.interactions.values()].find((candidate) => candidate.token === request.params.token);
  if (!interaction || Date.now() - interaction.createdAt > limits.interactionTokenTtlMs) {
    throw errors.invalidWebhookToken();
  }
  if (interaction.type === AUTOCOMPLETE) throw errors.unknownWebhook();
  return interaction;
}

/** `@original` or a follow-up of this interaction. */
function webhookMessage(context: RestContext, interaction: DiscordInteraction, id: string): DiscordMessage {
  const messageId = id === '@original' ? interaction.originalMessageId : id;
  const message = messageId === undefined ? undefined : context.state.findMessage(messageId);
  const ours = message && (message.id === interaction.originalMessageId || ownedBy(message, interaction));
  if (!message || !ours) throw errors.unknownMessage();
  return message;
}

function ownedBy(message: DiscordMessage, interaction: DiscordInteraction): boolean {
  return (message.interaction_metadata as { id?: string } | undefined)?.id === interaction.id;
}

function editOriginal(context: RestContext, message: DiscordMessage, body: Json, request: RouteRequest) {
  applyMessageEdit(context, message, body, request.files);
  message.flags &= ~LOADING;
  return edited(context, message);
}

export const interactionRoutes: RouteDefinition[] = [
  { method: 'POST', template: '/interactions/:interactionId/:token/callback', auth: false, handle: callback },
  {
    method: 'PATCH',
    template: '/webhooks/:applicationId/:token/messages/:messageId',
    auth: false,
    handle: (request, context) => {
      const interaction = webhookInteraction(request, context);
      const body = bodyObject(request);
      return recorded(context, interaction, { kind: 'edit', body }, () => {
        const message = webhookMessage(context, interaction, request.params.messageId ?? '');
        editOriginal(context, message, body, request);
        return { reply: json(wireMessage(context.state, message)), messageId: message.id };
      });
    },
  },
  {
    method: 'GET',
    template: '/webhooks/:applicationId/:token/messages/:messageId',
    auth: false,
    handle: (request, context) => {
      const interaction = webhookInteraction(request, context);
      const message = webhookMessage(context, interaction, request.params.messageId ?? '');
      return json(wireMessage(context.state, message));
    },
  },
  {
    method: 'DELETE',
    template: '/webhooks/:applicationId/:token/messages/:messageId',
    auth: false,
    handle: (request, context) => {
      const interaction = webhookInteraction(request, context);
      return recorded(context, interaction, { kind: 'delete', body: undefined }, () => {
        const message = webhookMessage(context, interaction, request.params.messageId ?? '');
        context.state.removeMessage(message);
        if (message.ephemeralFor === undefined) context.emit('MESSAGE_DELETE', messageDeleteDispatch(message));
        return { reply: noContent(), messageId: message.id };
      });
    },
  },
  {
    method: 'POST',
    template: '/webhooks/:applicationId/:token',
    auth: false,
    handle: (request, context) => {
      const interaction = webhookInteraction(request, context);
      const body = bodyObject(request);
      return recorded(context, interaction, { kind: 'follow-up', body }, () => {
        // Stand-in choice: no webhook exists until the interaction was acknowledged.
        if (interaction.initialResponse === undefined) throw errors.unknownWebhook();
        const original = interaction.originalMessageId
          ? context.state.findMessage(interaction.originalMessageId)
          : undefined;
        const message =
          interaction.initialResponse === Callback.Defer && original && original.flags & LOADING
            ? editOriginal(context, original, body, request)
            : post(
                context,
                buildBotMessage(context, {
                  channelId: interaction.channelId,
                  body,
                  files: request.files,
                  extra: interactionFields(context.state, interaction, Number(body.flags ?? 0)),
                }),
              );
        const reply = request.query.get('wait') === 'true' ? json(wireMessage(context.state, message)) : noContent();
        return { reply, messageId: message.id };
      });
    },
  },
];
