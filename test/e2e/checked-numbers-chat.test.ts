/**
 * Checked numbers where people read them: a model that insists on a figure no result holds has it
 * marked (`42.1%⚠`, and `⚠ not found in any result: 42.1%` under the text) in the section posted to
 * Slack (Bolt against the Slack stand-in: the review message's blocks), to Discord (discord.js
 * against the Discord stand-in: the message content) and in the terminal (`tally chat` as a user runs
 * it, and the report.html it writes). Real sandbox, MariaDB with telco_db, the scripted model.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScriptedModelServer, startScriptedModelServer } from '../../src/demo/scripted-model-server.js';
import {
  CHURN_REQUEST,
  churnNarrative,
  heard,
  insistingSectionScript,
  NOTE_START,
  SECTION_TITLE,
} from '../support/churn-figures-script.js';
import { cleanUp } from '../support/clean-up.js';
import { type DiscordTallyFixture, startDiscordTallyFixture } from '../support/discord-tally-fixture.js';
import { ALLOWED_CHANNEL, type SlackTallyFixture, startSlackTallyFixture } from '../support/slack-tally-fixture.js';
import { startTallyProcess, type TallyProcess } from '../support/tally-process.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const MARK = '⚠';
const OWNER_SLACK = 'U1ANN';
const OWNER_DISCORD = '1300000000000000101';

/** What the reviewer must see of the insisted figure: marked where it stands, and listed under the text. */
function expectMarked(shown: string, figures: { wrong: string; mailed: string }) {
  expect(shown).toContain(`${figures.wrong}${MARK} of them left`);
  expect(shown).toContain(`${MARK} not found in any result: ${figures.wrong}`);
  expect(shown).not.toContain(`${figures.mailed}${MARK}`);
  expect(shown).not.toContain(NOTE_START); // the note was for the model only
}

describe('on Slack', () => {
  const into = heard();
  let fixture: SlackTallyFixture | undefined;
  beforeAll(async () => {
    fixture = await startSlackTallyFixture(insistingSectionScript(into));
  }, 120_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it('posts the review with the insisted figure marked in its blocks', async () => {
    if (!fixture) throw new Error('the fixture did not start');
    const slack = fixture.slack;
    const threadTs = await slack.mention({ user: OWNER_SLACK, channel: ALLOWED_CHANNEL, text: CHURN_REQUEST });
    const review = await slack.waitFor(
      () => slack.messages(ALLOWED_CHANNEL, threadTs).find((message) => message.text.startsWith('Review s1 v1')),
      60_000,
    );
    expect(review.text).toBe(`Review s1 v1: ${SECTION_TITLE}`);
    const sections = (review.blocks ?? []) as Array<{ type: string; text?: { type: string; text: string } }>;
    const shown = sections
      .filter((block) => block.type === 'section')
      .map((block) => block.text?.text ?? '')
      .join('\n');
    expect(into.notes).toHaveLength(1);
    expectMarked(shown, into.figures ?? { wrong: '?', mailed: '?' });
    // One review only: the draft the note stopped never reached the channel.
    const reviews = slack.callsTo('chat.postMessage').filter((call) => String(call.args.text).startsWith('Review '));
    expect(reviews).toHaveLength(1);
    expect(JSON.stringify(reviews[0]?.args.blocks)).toContain(
      `${MARK} not found in any result: ${into.figures?.wrong}`,
    );
  });
});

describe('on Discord', () => {
  const into = heard();
  let fixture: DiscordTallyFixture | undefined;
  beforeAll(async () => {
    fixture = await startDiscordTallyFixture(insistingSectionScript(into));
  }, 120_000);
  afterAll(async () => {
    await fixture?.close();
  });

  it('posts the review with the insisted figure marked in its content', async () => {
    if (!fixture) throw new Error('the fixture did not start');
    const discord = fixture.discord;
    const before = discord.threads().length;
    await discord.slashCommand({
      user: OWNER_DISCORD,
      channel: discord.channelId,
      name: 'analyze',
      options: { question: CHURN_REQUEST },
    });
    const thread = await discord.waitFor(() => discord.threads()[before], 30_000);
    const bot = (message: { author: { id: string } }) => message.author.id === discord.ids.botUserId;
    const review = await discord.waitFor(
      () => discord.messages(thread.id).find((message) => bot(message) && message.content.includes('Review s1 v1')),
      60_000,
    );
    expect(review.content).toContain(`**Review s1 v1: ${SECTION_TITLE}** · drivers`);
    expect(into.notes).toHaveLength(1);
    expectMarked(review.content, into.figures ?? { wrong: '?', mailed: '?' });
    const reviews = discord
      .messages(thread.id)
      .filter((message) => bot(message) && message.content.includes('Review '));
    expect(reviews).toHaveLength(1);
  });
});

describe('in the terminal (tally chat)', () => {
  const into = heard();
  let environment: TestEnvironment | undefined;
  let model: ScriptedModelServer | undefined;
  let chat: TallyProcess | undefined;
  beforeAll(async () => {
    environment = await createTestEnvironment('console');
    model = await startScriptedModelServer({ script: insistingSectionScript(into) });
  }, 120_000);
  afterAll(async () => {
    chat?.kill('SIGKILL');
    await cleanUp(
      async () => {
        await chat?.exited;
      },
      () => model?.close(),
      () => environment?.close(),
    );
  });

  it('prints the review with the figure marked, and writes report.html marked and linked', async () => {
    if (!environment || !model) throw new Error('the fixture did not start');
    chat = startTallyProcess(['chat'], { ...environment.env(model.url), LOG_LEVEL: 'warn' }, { stdin: true });
    chat.stdin?.write(`${CHURN_REQUEST}\naccept\nreport\nexit\n`);
    const code = await chat.exited;
    const printed = chat.output();
    expect(code, printed).toBe(0);
    const figures = into.figures ?? { wrong: '?', mailed: '?', electronic: '?' };
    expect(into.notes).toHaveLength(1);
    expect(printed.match(/── review s\d+ v\d+/g)).toEqual(['── review s1 v1']);
    const review = printed.slice(printed.indexOf('── review s1 v1'), printed.indexOf('Reply: accept'));
    expect(review).toContain(`── review s1 v1 [drivers]: ${SECTION_TITLE} ──`);
    expect(review).toContain(
      `${churnNarrative(figures, `${figures.wrong}${MARK}`)}\n\n${MARK} not found in any result: ${figures.wrong}`,
    );
    expectMarked(printed, figures);

    const htmlPath = join(environment.home, 'reports', 'report.html');
    expect(printed).toContain(`[file] ${htmlPath}`);
    const html = await readFile(htmlPath, 'utf8');
    expect(html).toContain(`${figures.wrong}${MARK} of them left`);
    expect(html).toContain(`${MARK} not found in any result: ${figures.wrong}`);
    expect(html).toContain(`<a href="#s1-cell-1">${figures.mailed}</a>`);
    expect(html).toContain('<li id="s1-cell-1">');
  });
});
