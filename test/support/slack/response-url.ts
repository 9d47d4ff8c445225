/**
 * `response_url`s handed out with clicks and slash commands, and what a POST to one does (Bolt's
 * `respond()`): `replace_original` edits the clicked message, `delete_original` deletes it,
 * `response_type: 'in_channel'` posts a new message, anything else is an ephemeral message for the
 * user who acted.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, sendJson, sendText } from './http-body.js';
import { botMessage, type MethodContext } from './method-handler.js';
import type { Json } from './slack-state.js';

export interface ResponseTarget {
  channel: string;
  /** Who acted: the one who sees ephemeral responses. */
  user: string;
  /** The message the action came from, if any. */
  messageTs?: string;
  threadTs?: string;
}

export class ResponseUrls {
  private readonly targets = new Map<string, ResponseTarget>();

  issue(baseUrl: string, target: ResponseTarget): string {
    const id = randomUUID();
    this.targets.set(id, target);
    return `${baseUrl}/respond/${id}`;
  }

  /** `POST /respond/<id>` with a JSON body. */
  async receive(request: IncomingMessage, response: ServerResponse, context: MethodContext, id: string) {
    const target = this.targets.get(id);
    const text = (await readBody(request)).toString();
    if (!target) {
      sendText(response, 404, 'unknown response_url');
      return;
    }
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch {
      sendText(response, 400, 'response_url bodies are JSON');
      return;
    }
    const { state } = context;
    state.responses.push({ url: `${context.baseUrl}/respond/${id}`, body, at: Date.now() });
    apply(body, target, context);
    state.changed();
    sendJson(response, 200, { ok: true });
  }
}

function apply(body: Json, target: ResponseTarget, context: MethodContext): void {
  const { state } = context;
  const original = target.messageTs === undefined ? undefined : state.findMessage(target.channel, target.messageTs);
  const text = typeof body.text === 'string' ? body.text : '';
  const blocks = Array.isArray(body.blocks) ? body.blocks : undefined;
  if (body.delete_original === true || body.delete_original === 'true') {
    if (original) state.removeMessage(original.channel, original.ts);
    return;
  }
  if ((body.replace_original === true || body.replace_original === 'true') && original) {
    original.text = text;
    if (blocks) original.blocks = blocks;
    else delete original.blocks;
    return;
  }
  const threadTs = typeof body.thread_ts === 'string' ? body.thread_ts : target.threadTs;
  if (body.response_type === 'in_channel') {
    const message = botMessage(context, {
      channel: target.channel,
      text,
      threadTs: typeof body.thread_ts === 'string' ? body.thread_ts : undefined,
      extra: blocks ? { blocks } : {},
    });
    state.addMessage(message);
    context.botPosted(message);
    return;
  }
  state.ephemerals.push({
    channel: target.channel,
    user: target.user,
    text,
    ...(blocks ? { blocks } : {}),
    ...(threadTs === undefined ? {} : { threadTs }),
    messageTs: state.nextTs(),
    via: 'response_url',
  });
}
