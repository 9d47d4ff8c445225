import type { SessionSummary, ThreadKey } from '../../src/ports/chat.js';
import type { SlackListenerContext } from './slack-listener-context.js';
import type { Block } from './slack-render.js';
import { parseSlackThreadKey } from './slack-thread-key.js';
import { slackViewer } from './slack-viewer.js';

/** Sessions shown in the tab; with the fixed blocks this stays far below Slack's 100 blocks. */
export const HOME_SESSIONS = 15;
/** Slack's cap on blocks in a home view. */
const MAX_BLOCKS = 100;
/** Slack's cap on a section's text. */
const SECTION_CHARS = 3000;
const REQUEST_CHARS = 150;

/** How to change settings, shown wherever the defaults are. */
export const SETTINGS_HINT =
  'Change them for one thread by saying `set name=value` in it, e.g. `set temperature=0.3 review=on`.';

export interface HomeViewInput {
  sessions: SessionSummary[];
  settings: string[];
  /** The thread's address, when one can be made. */
  link: (threadKey: ThreadKey) => string | undefined;
}

/** Text safe inside mrkdwn (Slack's three control characters escaped). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const oneLine = (text: string, chars: number) => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= chars ? flat : `${flat.slice(0, chars - 1)}…`;
};

/** The request as a link to its thread (or plain when there is no address). */
export function sessionTitle(session: SessionSummary, link: HomeViewInput['link']): string {
  const request = escapeMrkdwn(oneLine(session.request || '(no request yet)', REQUEST_CHARS)).replace(/\|/g, '¦');
  const address = link(session.threadKey);
  return address ? `*<${address}|${request}>*` : `*${request}*`;
}

/** Status, sections accepted and when, in the reader's own time zone (Slack's date token). */
export function sessionFacts(session: SessionSummary): string {
  const seconds = Math.floor(session.updatedAt / 1000);
  const fallback = new Date(session.updatedAt).toISOString().slice(0, 16).replace('T', ' ');
  const sections = `${session.sectionsAccepted} section${session.sectionsAccepted === 1 ? '' : 's'} accepted`;
  return `${session.status} · ${sections} · updated <!date^${seconds}^{date_short_pretty} {time}|${fallback} UTC>`;
}

const cut = (text: string) => (text.length <= SECTION_CHARS ? text : `${text.slice(0, SECTION_CHARS - 1)}…`);
const section = (text: string): Block => ({ type: 'section', text: { type: 'mrkdwn', text: cut(text) } });
const header = (text: string): Block => ({ type: 'header', text: { type: 'plain_text', text } });
const context = (text: string): Block => ({ type: 'context', elements: [{ type: 'mrkdwn', text: cut(text) }] });

/** The home view: sessions, exports and default settings, within Slack's limits. */
export function homeView(input: HomeViewInput): { type: 'home'; blocks: Block[] } {
  const sessions = input.sessions.slice(0, HOME_SESSIONS);
  const blocks: Block[] = [
    header('tally'),
    context(
      'Mention @tally in a channel, use `/tally <question>`, or open a chat with tally. Each thread is a session with its own report.',
    ),
    { type: 'divider' },
    header('Your recent sessions'),
  ];
  if (sessions.length === 0) blocks.push(section('No sessions yet. Ask a question to start one.'));
  for (const session of sessions) {
    blocks.push(section(`${sessionTitle(session, input.link)}\n${sessionFacts(session)}`));
  }
  blocks.push({ type: 'divider' }, header('Your report exports'));
  const exported = sessions.filter((session) => session.exports.length > 0);
  blocks.push(
    section(
      exported.length === 0
        ? 'No exports yet. Say `report` in a thread to export its accepted sections.'
        : exported
            .map(
              (session) =>
                `• ${sessionTitle(session, input.link)}: ${session.exports.map((name) => `\`${escapeMrkdwn(name)}\``).join(', ')}`,
            )
            .join('\n'),
    ),
  );
  blocks.push({ type: 'divider' }, header('Default settings'));
  blocks.push(section(input.settings.map((line) => `\`${escapeMrkdwn(line)}\``).join('\n') || 'No settings.'));
  blocks.push(context(SETTINGS_HINT));
  return { type: 'home', blocks: blocks.slice(0, MAX_BLOCKS) };
}

/** `https://<workspace>.slack.com/archives/<channel>/p<ts without the dot>`: opens the thread's first message. */
export function threadLink(workspaceUrl: string, threadKey: ThreadKey): string | undefined {
  if (!workspaceUrl) return undefined;
  try {
    const { channel, threadTs } = parseSlackThreadKey(threadKey);
    const base = workspaceUrl.endsWith('/') ? workspaceUrl : `${workspaceUrl}/`;
    return `${base}archives/${channel}/p${threadTs.replace('.', '')}`;
  } catch {
    return undefined;
  }
}

/** What the App Home tab uses of the listeners' context. */
export type HomeTabContext = Pick<SlackListenerContext, 'app' | 'directory' | 'groupsOf' | 'workspaceUrl' | 'logError'>;

export function registerHomeTab(context: HomeTabContext): void {
  context.app.event('app_home_opened', async ({ event, client, context: bolt }) => {
    const { directory } = context;
    if (event.tab !== 'home' || !directory) return;
    try {
      // Only the viewer sees their App Home: it shows what they may see in a DM with tally (its channel, when given).
      const viewer = await slackViewer(
        { team: bolt.teamId ?? '', channel: event.channel || 'home', dm: true, userId: event.user },
        context.groupsOf,
      );
      const view = homeView({
        sessions: await directory.recentSessions(viewer, HOME_SESSIONS),
        settings: directory.defaultSettings(),
        link: (threadKey) => threadLink(context.workspaceUrl(), threadKey),
      });
      await client.views.publish({ user_id: event.user, view: view as never });
    } catch (error) {
      context.logError(error, 'could not publish the App Home tab');
    }
  });
}
