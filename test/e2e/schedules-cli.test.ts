/**
 * The schedules from the command line, as an operator runs tally (a child process): a malformed
 * file stops `tally slack` and `tally discord` at start-up with exit code 2 naming the entry;
 * `tally schedules list` shows the next due times in each schedule's zone; `tally schedules run NAME`
 * connects to Slack (the stand-in), runs the schedule now in a new thread and exits.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  type ScriptedModelServer,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { cleanUp } from '../support/clean-up.js';
import { writeSchedules } from '../support/scheduled-chat.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';
import { startTallyProcess } from '../support/tally-process.js';
import { createTestEnvironment, type TestEnvironment } from '../support/test-environment.js';

const CHANNEL = 'C1ANALYTICS';

let environment: TestEnvironment;
let slack: SlackStandIn;
let model: ScriptedModelServer;
let schedulesFile: string;

/** Runs `tally <command>` to its end; resolves with its exit code and what it printed. */
async function tally(command: string[], env: Record<string, string> = {}) {
  const child = startTallyProcess(command, {
    ...environment.env(model.url),
    SLACK_BOT_TOKEN: slack.botToken,
    SLACK_APP_TOKEN: slack.appToken,
    SLACK_API_URL: slack.apiUrl,
    TALLY_SCHEDULES: schedulesFile,
    ...env,
  });
  const code = await child.exited;
  return { code, output: child.output() };
}

beforeAll(async () => {
  environment = await createTestEnvironment('schedcli');
  model = await startScriptedModelServer({
    script: [
      callTool('triage', { verdict: 'answerable' }),
      callTool('draft_section', { title: 'Blanks', stage: 'data quality', markdown: 'No blanks found.' }),
      say('Done.'),
    ],
  });
  slack = await startSlackStandIn({ channels: [{ id: CHANNEL, name: 'analytics' }] });
  schedulesFile = await writeSchedules(environment.home, [
    {
      name: 'monday-churn',
      cron: '0 9 * * 1',
      timezone: 'Europe/Berlin',
      playbook: 'churn-drivers.md',
      channel: `slack:${slack.ids.teamId}:${CHANNEL}`,
      owner: 'U1ANN',
      review: 'auto',
    },
  ]);
}, 120_000);

afterAll(async () => {
  await cleanUp(
    () => slack?.close(),
    () => model?.close(),
    () => environment?.close(),
  );
});

describe('schedules on the command line', () => {
  it('stops tally slack and tally discord at start-up when the file is malformed, naming the entry', async () => {
    const bad = join(environment.home, 'bad.yaml');
    await writeFile(
      bad,
      'schedules:\n  - name: weekly-churn\n    cron: "0 9 * * 1"\n    timezone: Europe/Berln\n    request: x\n    channel: slack:T1:C1\n    owner: U1\n',
    );
    for (const platform of ['slack', 'discord']) {
      const { code, output } = await tally([platform], {
        TALLY_SCHEDULES: bad,
        DISCORD_TOKEN: 'stand-in-token',
        DISCORD_API_URL: 'http://127.0.0.1:9/api',
      });
      expect(code, output).toBe(2);
      expect(output).toContain(`tally: The schedules file ${bad} (TALLY_SCHEDULES) is invalid`);
      expect(output).toContain("'weekly-churn', timezone: unknown time zone 'Europe/Berln'");
    }
  }, 60_000);

  it('lists each schedule with its next due times in its time zone', async () => {
    const { code, output } = await tally(['schedules', 'list']);
    expect(code, output).toBe(0);
    expect(output).toContain(
      `monday-churn: 0 9 * * 1 (Europe/Berlin) -> slack:${slack.ids.teamId}:${CHANNEL}, owner U1ANN, review auto`,
    );
    expect(output).toContain(
      "  asks: What drives churn? Follow the playbook 'Churn driver analysis' (churn-drivers.md).",
    );
    const next = output.split('\n').filter((line) => line.startsWith('  next: '));
    expect(next).toHaveLength(3);
    for (const line of next)
      expect(line).toMatch(/^ {2}next: Mon \d{4}-\d\d-\d\d 09:00 \(Europe\/Berlin, GMT\+[12]\)$/);
  }, 60_000);

  it('runs a schedule now: a new thread in its channel, the section accepted, the report exported', async () => {
    const { code, output } = await tally(['schedules', 'run', 'monday-churn']);
    expect(code, output).toBe(0);
    const root = slack.messages(CHANNEL).find((message) => message.text.startsWith('Scheduled: monday-churn'));
    expect(root).toBeDefined();
    expect(output).toContain(`monday-churn: finished (thread slack:${slack.ids.teamId}:${CHANNEL}:${root?.ts})`);
    const files = slack.files().filter((file) => file.threadTs === root?.ts && file.name.startsWith('report.'));
    expect(files.map((file) => file.name).sort()).toEqual(['report.html', 'report.ipynb', 'report.md']);
    const listed = await tally(['schedules', 'list']);
    expect(listed.output).toMatch(/ {2}last run: .*, by hand, finished, slack:/);
  }, 120_000);

  it('refuses an unknown schedule with exit code 2', async () => {
    const { code, output } = await tally(['schedules', 'run', 'tuesday']);
    expect(code).toBe(2);
    expect(output).toContain("There is no schedule 'tuesday' in");
  }, 60_000);
});
