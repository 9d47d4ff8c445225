/**
 * Modals: `views.open` / `views.push` (which spend a trigger id from a click or a command) and
 * `views.update`; Home tabs: `views.publish` (one per user, no trigger). The stored view is the
 * posted one plus the fields Slack adds (`id`, `hash`, …).
 */
import { randomBytes } from 'node:crypto';
import { failure, type MethodContext, type MethodHandler, ok, stringArg } from './method-handler.js';
import type { Json, SlackView } from './slack-state.js';

/** The view as Slack returns it: what the app sent plus the fields Slack fills in. */
function storedView(context: MethodContext, id: string, posted: Json, rootViewId: string, previousId: string | null) {
  const { ids } = context;
  return {
    id,
    team_id: ids.teamId,
    type: posted.type,
    blocks: posted.blocks ?? [],
    private_metadata: posted.private_metadata ?? '',
    callback_id: posted.callback_id ?? '',
    state: { values: {} },
    hash: `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`,
    title: posted.title,
    clear_on_close: posted.clear_on_close ?? false,
    notify_on_close: posted.notify_on_close ?? false,
    close: posted.close ?? null,
    submit: posted.submit ?? null,
    previous_view_id: previousId,
    root_view_id: rootViewId,
    app_id: ids.appId,
    external_id: posted.external_id ?? '',
    app_installed_team_id: ids.teamId,
    bot_id: ids.botId,
  };
}

function postedView(args: Json): Json | undefined {
  const view = args.view;
  if (typeof view !== 'object' || view === null || Array.isArray(view)) return undefined;
  const type = (view as Json).type;
  return type === 'modal' || type === 'home' ? (view as Json) : undefined;
}

function openWithTrigger(push: boolean): MethodHandler {
  return (args, context) => {
    const posted = postedView(args);
    if (!posted) return failure('invalid_arguments');
    const triggerId = stringArg(args, 'trigger_id') ?? '';
    const check = context.state.useTrigger(triggerId);
    if (check !== 'ok') return failure(check);
    const user = context.state.triggerUser(triggerId) ?? '';
    const id = context.state.nextId('V');
    const below = push
      ? [...context.state.views.values()].reverse().find((view) => view.open && view.user === user)
      : undefined;
    const rootViewId = below ? String(below.view.root_view_id) : id;
    const view: SlackView = {
      id,
      user,
      triggerId,
      view: storedView(context, id, posted, rootViewId, below?.id ?? null),
      open: true,
    };
    context.state.views.set(id, view);
    context.state.changed();
    return ok({ view: view.view });
  };
}

const update: MethodHandler = (args, context) => {
  const posted = postedView(args);
  if (!posted) return failure('invalid_arguments');
  const viewId = stringArg(args, 'view_id');
  const externalId = stringArg(args, 'external_id');
  const existing = [...context.state.views.values()].find(
    (view) => view.id === viewId || (externalId !== undefined && view.view.external_id === externalId),
  );
  if (!existing) return failure('not_found');
  const hash = stringArg(args, 'hash');
  if (hash !== undefined && hash !== existing.view.hash) return failure('hash_conflict');
  const { root_view_id, previous_view_id } = existing.view;
  existing.view = storedView(context, existing.id, posted, String(root_view_id), previous_view_id as string | null);
  context.state.changed();
  return ok({ view: existing.view });
};

/** Slack's limits on a view's blocks (`invalid_blocks` beyond them). */
const MAX_VIEW_BLOCKS = 100;
const MAX_SECTION_TEXT = 3000;

function blocksWithinLimits(blocks: unknown): boolean {
  if (!Array.isArray(blocks) || blocks.length > MAX_VIEW_BLOCKS) return false;
  return blocks.every((block) => {
    const text = (block as { text?: { text?: unknown } }).text?.text;
    return typeof text !== 'string' || text.length <= MAX_SECTION_TEXT;
  });
}

const publish: MethodHandler = (args, context) => {
  const user = stringArg(args, 'user_id');
  const posted = postedView(args);
  if (!user || !/^[UW]/.test(user) || posted?.type !== 'home') return failure('invalid_arguments');
  if (!blocksWithinLimits(posted.blocks ?? [])) return failure('invalid_blocks');
  const { state } = context;
  const existing = state.homeViews.get(user);
  const hash = stringArg(args, 'hash');
  if (existing && hash !== undefined && hash !== existing.view.hash) return failure('hash_conflict');
  const id = existing?.id ?? state.nextId('V');
  const view: SlackView = { id, user, triggerId: '', view: storedView(context, id, posted, id, null), open: true };
  state.homeViews.set(user, view);
  state.changed();
  return ok({ view: view.view });
};

export const viewMethods: Record<string, MethodHandler> = {
  'views.publish': publish,
  'views.open': openWithTrigger(false),
  'views.push': openWithTrigger(true),
  'views.update': update,
};
