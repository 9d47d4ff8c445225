/**
 * The pure parts of Slack's surfaces: the App Home view (sessions, exports, settings, within Block
 * Kit's limits), links to threads, assistant thread titles and prompts, `/tally` parsing, edits
 * from `message_changed`, the Run again offer, and the manifest that asks Slack for all of it.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { suggestedPrompts, threadTitle } from '../../adapters/slack/slack-assistant.js';
import { parseTallyCommand, rootText } from '../../adapters/slack/slack-command.js';
import { parseEdit } from '../../adapters/slack/slack-edits.js';
import { HOME_SESSIONS, homeView, threadLink } from '../../adapters/slack/slack-home.js';
import { renderForSlack } from '../../adapters/slack/slack-render.js';
import { ACTION_IDS, type SessionSummary, type TallyDirectory, type Viewer } from '../../src/ports/chat.js';

const WORKSPACE = 'https://acme.slack.com/';
const session = (overrides: Partial<SessionSummary> = {}): SessionSummary => ({
  threadKey: 'slack:T1:C1ANALYTICS:1700000000.000100',
  request: 'Which contracts churn most?',
  status: 'idle',
  sectionsAccepted: 2,
  exports: [],
  updatedAt: Date.UTC(2026, 10, 24, 9, 30),
  ...overrides,
});
const link = (threadKey: string) => threadLink(WORKSPACE, threadKey);
const texts = (blocks: Array<Record<string, unknown>>) =>
  blocks.map((block) => {
    const text = block.text as { text?: string } | undefined;
    const elements = (block.elements as Array<{ text?: string }> | undefined) ?? [];
    return text?.text ?? elements.map((element) => element.text ?? '').join(' ');
  });

describe('the App Home view', () => {
  it('lists each session with a link to its thread, its status and the sections accepted', () => {
    const view = homeView({
      sessions: [
        session(),
        session({
          threadKey: 'slack:T1:D1ANN:1700000001.000200',
          request: 'What drives churn?',
          status: 'waiting for review',
          sectionsAccepted: 1,
        }),
      ],
      settings: ['temperature: 0.2', 'review: off'],
      link,
    });
    expect(view.type).toBe('home');
    const shown = texts(view.blocks).join('\n');
    expect(shown).toContain(
      '*<https://acme.slack.com/archives/C1ANALYTICS/p1700000000000100|Which contracts churn most?>*\nidle · 2 sections accepted · updated <!date^',
    );
    expect(shown).toContain('|What drives churn?>*\nwaiting for review · 1 section accepted');
    expect(shown).toContain('2026-11-24 09:30 UTC>');
    expect(shown).toContain('`temperature: 0.2`\n`review: off`');
    expect(shown).toContain('`set temperature=0.3 review=on`');
    expect(shown).toContain('No exports yet');
  });

  it("lists a session's exports, and says when there are no sessions", () => {
    const withExports = homeView({
      sessions: [session({ exports: ['report.md', 'report.html'] })],
      settings: [],
      link,
    });
    expect(texts(withExports.blocks).join('\n')).toContain('churn most?>*: `report.md`, `report.html`');
    const empty = homeView({ sessions: [], settings: [], link });
    expect(texts(empty.blocks).join('\n')).toContain('No sessions yet');
  });

  it("keeps within Block Kit's limits: at most 100 blocks, section text at most 3,000 characters, escaped", () => {
    const many = Array.from({ length: 500 }, (_, index) =>
      session({
        request: `<b>${'x'.repeat(5000)}</b> ${index}`,
        exports: Array.from({ length: 80 }, (_, n) => `export-${n}-${'y'.repeat(40)}.md`),
      }),
    );
    const view = homeView({
      sessions: many,
      settings: Array.from({ length: 400 }, (_, n) => `setting${n}: ${'z'.repeat(20)}`),
      link,
    });
    expect(view.blocks.length).toBeLessThanOrEqual(100);
    const sessionBlocks = view.blocks.filter((block) => JSON.stringify(block).includes('archives'));
    expect(sessionBlocks.length).toBeGreaterThanOrEqual(HOME_SESSIONS);
    for (const text of texts(view.blocks)) expect(text.length).toBeLessThanOrEqual(3000);
    expect(texts(view.blocks).join('')).not.toContain('<b>');
    expect(texts(view.blocks).join('')).toContain('&lt;b&gt;');
  });

  it('shows the request without a link when the workspace address is unknown', () => {
    const view = homeView({ sessions: [session()], settings: [], link: (threadKey) => threadLink('', threadKey) });
    expect(texts(view.blocks).join('\n')).toContain('*Which contracts churn most?*');
  });
});

describe('assistant threads', () => {
  it('titles a thread from the first line of its request, cut at a word', () => {
    expect(threadTitle('<@UBOT> What drives churn?\nuse the telco data')).toBe('What drives churn?');
    const long = threadTitle(`Compare the churn rate of month-to-month customers with ${'yearly '.repeat(20)}`);
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long.endsWith('…')).toBe(true);
    expect(long).not.toMatch(/\s…$/);
  });

  it("offers at most four prompts from the directory, those for the pane's viewer", () => {
    const viewer: Viewer = {
      channel: 'slack:T1:D1ANN',
      user: { id: 'U1ANN', groups: ['S1ANALYSTS'] },
      place: { channel: 'D1ANN', dm: true },
    };
    const asked: Viewer[] = [];
    const directory: TallyDirectory = {
      recentSessions: async () => [],
      defaultSettings: () => [],
      starterPrompts: (who) => {
        asked.push(who);
        return Array.from({ length: 6 }, (_, n) => ({ title: `Prompt ${n}`, message: `Question ${n}?` }));
      },
    };
    expect(suggestedPrompts(directory, viewer).map((prompt) => prompt.message)).toEqual([
      'Question 0?',
      'Question 1?',
      'Question 2?',
      'Question 3?',
    ]);
    expect(asked).toEqual([viewer]);
    expect(suggestedPrompts(undefined, viewer)).toEqual([]);
  });
});

describe('/tally', () => {
  it('tells a question from the subcommands', () => {
    expect(parseTallyCommand('')).toEqual({ kind: 'help' });
    expect(parseTallyCommand(' Help ')).toEqual({ kind: 'help' });
    expect(parseTallyCommand('sessions')).toEqual({ kind: 'sessions' });
    expect(parseTallyCommand('settings')).toEqual({ kind: 'settings' });
    expect(parseTallyCommand('  settings of the churn model?')).toEqual({
      kind: 'question',
      text: 'settings of the churn model?',
    });
  });

  it('quotes the asker and the question in the root message', () => {
    expect(rootText('U1ANN', 'Is a < b?\nAnd c?')).toBe('<@U1ANN> asked with /tally:\n> Is a &lt; b?\n> And c?');
  });
});

describe('edits', () => {
  const changed = {
    type: 'message',
    subtype: 'message_changed',
    hidden: true,
    channel: 'C1ANALYTICS',
    channel_type: 'channel',
    message: {
      type: 'message',
      user: 'U1ANN',
      text: '<@UBOT> by contract',
      ts: '1700000000.000300',
      thread_ts: '1700000000.000100',
    },
    previous_message: { type: 'message', user: 'U1ANN', text: '<@UBOT> by region', ts: '1700000000.000300' },
  };

  it("reads a person's edit: the message, its thread and the new text", () => {
    expect(parseEdit(changed, 'UBOT')).toEqual({
      channel: 'C1ANALYTICS',
      threadTs: '1700000000.000100',
      user: 'U1ANN',
      messageId: '1700000000.000300',
      text: '<@UBOT> by contract',
    });
    const { thread_ts: _, ...root } = changed.message;
    expect(parseEdit({ ...changed, message: root }, 'UBOT')?.threadTs).toBe('1700000000.000300');
  });

  it("ignores the bot's own updates, Slack's retitling of assistant threads and unchanged text", () => {
    expect(parseEdit({ ...changed, message: { ...changed.message, user: 'UBOT' } }, 'UBOT')).toBeUndefined();
    expect(parseEdit({ ...changed, message: { ...changed.message, bot_id: 'B1' } }, 'UBOT')).toBeUndefined();
    expect(
      parseEdit({ ...changed, message: { ...changed.message, subtype: 'assistant_app_thread' } }, 'UBOT'),
    ).toBeUndefined();
    expect(parseEdit({ ...changed, previous_message: { text: '<@UBOT> by contract' } }, 'UBOT')).toBeUndefined();
    expect(parseEdit({ ...changed, subtype: 'message_deleted' }, 'UBOT')).toBeUndefined();
  });

  it('offers to run the edited text with a button carrying the message id', () => {
    const [op] = renderForSlack({ kind: 'rerun', messageId: '1700000000.000300', text: 'by contract' });
    expect(op).toMatchObject({ kind: 'message' });
    const blocks = op?.kind === 'message' ? (op.blocks ?? []) : [];
    expect(JSON.stringify(blocks[0])).toContain('> by contract');
    expect(blocks[1]).toMatchObject({
      type: 'actions',
      elements: [{ action_id: ACTION_IDS.rerun, value: '1700000000.000300', text: { text: 'Run the edited version' } }],
    });
  });
});

describe('the Slack manifest', () => {
  it('asks for the scopes and events the surfaces use', async () => {
    const manifest = parse(await readFile(new URL('../../adapters/slack/manifest.yaml', import.meta.url), 'utf8'));
    const scopes: string[] = manifest.oauth_config.scopes.bot;
    // assistant.threads.setSuggestedPrompts / setTitle, /tally, assistant threads and DMs, posting.
    expect(scopes).toEqual(expect.arrayContaining(['assistant:write', 'commands', 'im:history', 'chat:write']));
    const events: string[] = manifest.settings.event_subscriptions.bot_events;
    expect(events).toEqual(
      expect.arrayContaining(['app_home_opened', 'assistant_thread_started', 'message.im', 'message.channels']),
    );
    expect(manifest.features.app_home.home_tab_enabled).toBe(true);
    expect(manifest.features.assistant_view.assistant_description).toBeTruthy();
    expect(manifest.features.slash_commands.map((command: { command: string }) => command.command)).toEqual(['/tally']);
  });
});
