import { escapeMrkdwn, SETTINGS_HINT, sessionFacts, sessionTitle, threadLink } from './slack-home.js';
import type { SlackListenerContext } from './slack-listener-context.js';
import { slackPlace, slackThreadKey } from './slack-thread-key.js';
import { slackViewer } from './slack-viewer.js';

/** Sessions listed by `/tally sessions`. */
const LISTED_SESSIONS = 10;

export const USAGE = [
  '*/tally* works with your data in threads:',
  '• `/tally <question>`: start a session here, e.g. `/tally What drives churn?`',
  '• `/tally sessions`: your recent sessions',
  '• `/tally settings`: the settings a new thread starts with',
  'You can also mention @tally in a channel, or open a chat with tally.',
].join('\n');

export type TallyCommand =
  | { kind: 'help' }
  | { kind: 'sessions' }
  | { kind: 'settings' }
  | { kind: 'question'; text: string };

export function parseTallyCommand(text: string): TallyCommand {
  const trimmed = text.trim();
  const word = trimmed.toLowerCase();
  if (word === '' || word === 'help') return { kind: 'help' };
  if (word === 'sessions') return { kind: 'sessions' };
  if (word === 'settings') return { kind: 'settings' };
  return { kind: 'question', text: trimmed };
}

/** The root message a `/tally` question becomes: who asked, and the question quoted. */
export function rootText(user: string, question: string): string {
  const quoted = escapeMrkdwn(question)
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
  return `<@${user}> asked with /tally:\n${quoted}`;
}

/** What `/tally` uses of the listeners' context. */
export type CommandContext = Pick<
  SlackListenerContext,
  | 'app'
  | 'directory'
  | 'groupsOf'
  | 'allowed'
  | 'refuse'
  | 'postRoot'
  | 'markThread'
  | 'deliver'
  | 'workspaceUrl'
  | 'logError'
>;

export function registerTallyCommand(context: CommandContext): void {
  context.app.command('/tally', async ({ command, ack, respond }) => {
    const parsed = parseTallyCommand(command.text ?? '');
    const { user_id: user, channel_id: channel } = command;
    const tell = (text: string) =>
      respond({ response_type: 'ephemeral', text }).catch((error: unknown) =>
        context.logError(error, 'could not answer /tally'),
      );
    if (parsed.kind === 'help') {
      await ack({ response_type: 'ephemeral', text: USAGE });
      return;
    }
    if (parsed.kind === 'settings') {
      const lines = (context.directory?.defaultSettings() ?? []).map((line) => `• \`${escapeMrkdwn(line)}\``);
      await ack({
        response_type: 'ephemeral',
        text: ['*A new thread starts with*', ...lines, SETTINGS_HINT].join('\n'),
      });
      return;
    }
    await ack();
    if (parsed.kind === 'sessions') {
      // Listed in the channel the command was run in: sessions whose data may be shown there.
      const dm = slackPlace(channel).dm || command.channel_name === 'directmessage';
      const viewer = await slackViewer({ team: command.team_id, channel, dm, userId: user }, context.groupsOf);
      const sessions = (await context.directory?.recentSessions(viewer, LISTED_SESSIONS)) ?? [];
      await tell(
        sessions.length === 0
          ? 'You have no sessions yet. Start one with `/tally <question>`.'
          : [
              '*Your recent sessions*',
              ...sessions.map(
                (session) =>
                  `• ${sessionTitle(session, (threadKey) => threadLink(context.workspaceUrl(), threadKey))}\n   ${sessionFacts(session)}`,
              ),
            ].join('\n'),
      );
      return;
    }
    if (!context.allowed(channel, user)) {
      await context.refuse(channel, user, undefined);
      return;
    }
    let threadTs: string;
    try {
      threadTs = await context.postRoot(channel, rootText(user, parsed.text));
    } catch (error) {
      context.logError(error, 'could not post the root of a /tally session');
      await tell('I cannot post in this conversation. Invite me with `/invite @tally`, or ask in a channel I am in.');
      return;
    }
    const threadKey = slackThreadKey({ team: command.team_id, channel, threadTs });
    context.markThread(threadKey);
    context.deliver({
      threadKey,
      user: { id: user },
      text: parsed.text,
      receivedAt: Date.now(),
      place: slackPlace(channel),
    });
  });
}
