/**
 * Deletion on request end to end, on Slack (the real Bolt app against the Slack stand-in, the real
 * sandbox, MariaDB and the scripted model), once on the embedded SQLite store and once on Redis.
 * Alice leaves a marker in her messages, a cell she runs (code, output and a file in her workspace),
 * a reviewed section, the exported report, a saved playbook, a training export and a message in Bob's
 * thread. `tally forget --user` runs as its own process while the service runs; afterwards a scan of
 * every Redis key and value, every file under TALLY_HOME (state.db and its WAL included) and the
 * playbook folder finds the marker nowhere, Bob's session is whole and answers, and the audit holds
 * one deletion record without content.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { lstat, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/agent/log-event.js';
import { callTool, type ScriptContext, say } from '../../src/demo/scripted-model-server.js';
import type { AuditRecord } from '../../src/ports/audit.js';
import { openPostKey } from '../../src/ports/chat.js';
import { REMOVED_TEXT, rememberedPosts } from '../../src/sessions/erase-thread.js';
import { logKey } from '../../src/sessions/session-log.js';
import { type SessionRecord, sessionKey } from '../../src/sessions/session-record.js';
import { cleanUp } from '../support/clean-up.js';
import { createRedisTestSpace, type RedisTestSpace } from '../support/redis.js';
import { type TallyRun, runTally as tally } from '../support/run-tally.js';
import { ALLOWED_CHANNEL, type SlackTallyFixture, startSlackTallyFixture } from '../support/slack-tally-fixture.js';
import { sqliteEntries } from '../support/stored-state.js';
import type { TestEnvironment } from '../support/test-environment.js';

const ALICE = 'U_ALICE';
const BOB = 'U_BOB';
const OPERATOR = 'U_DPO';
/** The random part is what the scan looks for, in either case: a playbook's tags lowercase the words. */
const ALICE_TOKEN = randomBytes(8).toString('hex');
const BOB_TOKEN = randomBytes(8).toString('hex');
const ALICE_MARKER = `MARKER-${ALICE_TOKEN}`;
const BOB_MARKER = `MARKER-${BOB_TOKEN}`;
// No marker in SQL: the audit keeps every query's text, and keeps it by design.
const COUNT_SQL = 'SELECT COUNT(*) AS customers FROM user_payments';

const last = (context: ScriptContext) => context.lastToolResult?.content ?? '';

/** Where `token` occurs, as bytes in either case: `label` for each hit. */
function hits(token: string, bytes: Buffer | string, label: string): string[] {
  const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  return data.includes(token) || data.includes(token.toUpperCase()) ? [label] : [];
}

/** Every regular file under `folder` (links not followed) that holds `token`, by path relative to `base`. */
async function filesHolding(token: string, folder: string, base = folder): Promise<string[]> {
  const found: string[] = [];
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    const path = join(folder, name);
    const stat = await lstat(path).catch(() => undefined);
    if (stat?.isDirectory()) found.push(...(await filesHolding(token, path, base)));
    else if (stat?.isFile()) {
      const bytes = await readFile(path).catch(() => undefined);
      if (bytes) found.push(...hits(token, bytes, relative(base, path)));
    }
  }
  return found;
}

/** Every key under the prefix whose name or value (of any type) holds `token`. */
async function redisKeysHolding(token: string, space: RedisTestSpace): Promise<string[]> {
  const { client } = space;
  const found: string[] = [];
  for (const key of await space.keys()) {
    const type = await client.type(key);
    const value = await (async (): Promise<unknown> => {
      switch (type) {
        case 'string':
          return client.get(key);
        case 'list':
          return client.lRange(key, 0, -1);
        case 'hash':
          return client.hGetAll(key);
        case 'set':
          return client.sMembers(key);
        case 'zset':
          return client.zRange(key, 0, -1);
        case 'stream':
          return client.xRange(key, '-', '+');
        default:
          return `unread type ${type}`;
      }
    })();
    found.push(...hits(token, `${key}\n${JSON.stringify(value)}`, `redis ${type} ${key}`));
  }
  return found;
}

describe.each([
  { store: 'the embedded SQLite store', redis: false },
  { store: 'Redis', redis: true },
])('tally forget --user, on $store', ({ redis }) => {
  let fixture: SlackTallyFixture;
  let environment: TestEnvironment;
  let space: RedisTestSpace | undefined;
  let playbookDir = '';
  let aliceTs = '';
  let bobTs = '';
  let aliceWorkspaces: string[] = [];
  let forgetRun: TallyRun;

  const extraEnv = () => ({
    TALLY_PLAYBOOK_DIR: playbookDir,
    TALLY_CONSOLE_USER: OPERATOR,
    ...(space ? { REDIS_URL: space.url, TALLY_REDIS_PREFIX: space.keyPrefix } : {}),
  });
  /** What the command line gets: the service's own settings. */
  const cliEnv = () => ({ ...environment.env(fixture.server.url), ...extraEnv(), LOG_LEVEL: 'silent' });
  const store = () => fixture.service.tally.store;
  const workspaceRoot = () => join(environment.home, 'workspaces', environment.instance);
  const botMessages = (threadTs: string) =>
    fixture.slack.messages(ALLOWED_CHANNEL, threadTs).filter((message) => message.user === fixture.slack.ids.botUserId);
  const botSays = (threadTs: string, text: string) =>
    fixture.slack.waitFor(() => botMessages(threadTs).find((message) => message.text.includes(text)), 60_000);
  const reply = (user: string, threadTs: string, text: string) =>
    fixture.slack.reply({ user, channel: ALLOWED_CHANNEL, threadTs, text });
  /** Everywhere the store, TALLY_HOME and the playbook folder hold `token`. */
  const scan = async (token: string) => [
    ...(space ? await redisKeysHolding(token, space) : []),
    ...(await filesHolding(token, environment.home)).map((path) => `TALLY_HOME/${path}`),
    ...(await filesHolding(token, playbookDir)).map((path) => `playbooks/${path}`),
  ];

  beforeAll(async () => {
    playbookDir = await mkdtemp(join(tmpdir(), 'tally-forget-playbooks-'));
    if (redis) space = await createRedisTestSpace('forget');
    fixture = await startSlackTallyFixture(
      [
        // Alice's thread: a section whose narrative carries her marker.
        callTool('triage', { verdict: 'answerable' }),
        callTool('run_sql', { sql: COUNT_SQL }),
        (context) =>
          callTool('draft_section', {
            title: 'Customer count',
            stage: 'data overview',
            markdown: `Customers counted for ${ALICE_MARKER}:\n\`\`\`\n${last(context)}\n\`\`\``,
          }),
        say('Alice, the count is in the report.'),
        // Bob's thread.
        callTool('triage', { verdict: 'answerable' }),
        say(`Bob, noted ${BOB_MARKER}.`),
        // Alice's message in Bob's thread.
        callTool('triage', { verdict: 'answerable' }),
        say('Thank you, noted.'),
        // Bob's follow-up after the deletion.
        callTool('triage', { verdict: 'answerable' }),
        say('Bob, still here after the deletion.'),
      ],
      extraEnv(),
      {
        prepare: async (prepared) => {
          environment = prepared;
          return {};
        },
      },
    );
  }, 180_000);

  afterAll(async () => {
    await cleanUp(
      () => fixture?.close(),
      () => space?.cleanup(),
      () => rm(playbookDir, { recursive: true, force: true }),
    );
  });

  it("seeds Alice's marker in her messages, cell, output, report, playbook, training export and Bob's thread", async () => {
    aliceTs = await fixture.slack.mention({
      user: ALICE,
      channel: ALLOWED_CHANNEL,
      text: `How many customers are there? Tag ${ALICE_MARKER}`,
    });
    await botSays(aliceTs, 'Review ');
    await reply(ALICE, aliceTs, 'accept');
    await botSays(aliceTs, 'Alice, the count is in the report.');

    await reply(
      ALICE,
      aliceTs,
      `\`\`\`python\nnote = "${ALICE_MARKER}"\nopen("note.txt", "w").write(note)\nprint("printed", note)\n\`\`\``,
    );
    await botSays(aliceTs, `printed ${ALICE_MARKER}`);
    aliceWorkspaces = (await readdir(workspaceRoot())).map((name) => join(workspaceRoot(), name));
    expect(aliceWorkspaces.length).toBeGreaterThan(0);

    await reply(ALICE, aliceTs, 'report');
    const html = await fixture.slack.waitFor(
      () => fixture.slack.files().find((file) => file.threadTs === aliceTs && file.name === 'report.html'),
      60_000,
    );
    expect(html.bytes?.toString()).toContain(ALICE_MARKER);
    await reply(ALICE, aliceTs, 'save as playbook: Alice customer count');
    await botSays(aliceTs, 'Playbook draft: Alice customer count');
    await reply(ALICE, aliceTs, 'accept');
    await botSays(aliceTs, 'Saved playbook');

    bobTs = await fixture.slack.mention({
      user: BOB,
      channel: ALLOWED_CHANNEL,
      text: `Which contract types do we sell? Reference ${BOB_MARKER}`,
    });
    await botSays(bobTs, `Bob, noted ${BOB_MARKER}.`);
    await reply(BOB, bobTs, `\`\`\`python\nprint("bob printed", "${BOB_MARKER}")\n\`\`\``);
    await botSays(bobTs, `bob printed ${BOB_MARKER}`);
    await reply(ALICE, bobTs, `I saw ${ALICE_MARKER} here too`);
    await botSays(bobTs, 'Thank you, noted.');

    const exported = await tally(
      ['export-training', '--out', join(environment.home, 'training', 'all.jsonl')],
      cliEnv(),
    );
    expect(exported.code, exported.stderr).toBe(0);

    // The scan sees the marker where it was put, so finding nothing later means something.
    const seeded = await scan(ALICE_TOKEN);
    // The adapter remembers her review post, under a name that does not say whose thread it is.
    const remembered = await rememberedPosts(store());
    expect(remembered.get(fixture.threadKey(aliceTs))?.length).toBeGreaterThan(0);
    expect(seeded).toEqual(expect.arrayContaining(['TALLY_HOME/training/all.jsonl']));
    expect(seeded.some((where) => where.startsWith('playbooks/'))).toBe(true);
    expect(seeded.some((where) => where.includes('/note.txt'))).toBe(true);
    expect(seeded.some((where) => (redis ? where.startsWith('redis ') : where.startsWith('TALLY_HOME/state.db')))).toBe(
      true,
    );
  }, 300_000);

  it('forgets Alice from its own process while the service runs, and the service drops her kernel', async () => {
    // What a process that died mid-turn leaves in her thread: the record of its open stream, named by the thread.
    await store().set(openPostKey(fixture.threadKey(aliceTs)), { channel: 'C-left', ts: '1.1' });
    forgetRun = await tally(['forget', '--user', ALICE], cliEnv());
    expect(forgetRun.code, forgetRun.stderr).toBe(0);
    expect(forgetRun.stdout).toMatch(
      /^forgot user U_ALICE: 1 threads, [1-9]\d* messages in others' threads, \d+ store entries, 1 saved playbooks; 1 training exports written again$/m,
    );
    const deadline = Date.now() + 40_000;
    while (aliceWorkspaces.some((path) => existsSync(path)) && Date.now() < deadline) await sleep(250);
    expect(aliceWorkspaces.filter((path) => existsSync(path))).toEqual([]);
  }, 90_000);

  it('leaves the marker nowhere: not in the store, TALLY_HOME (state.db and its WAL included) or the playbooks', async () => {
    expect(await scan(ALICE_TOKEN)).toEqual([]);
    expect(existsSync(join(environment.home, 'training', 'all.jsonl'))).toBe(true); // written again, not removed
  });

  it("forgets Alice's thread: no session, nothing kept under its key", async () => {
    const aliceThread = fixture.threadKey(aliceTs);
    expect(await store().get(sessionKey(aliceThread))).toBeUndefined();
    const names = await store().keys('');
    expect(names.filter((name) => name.includes(aliceThread))).toEqual([]);
    // Its key is kept only where it must be: in the audit trail, in the list telling replicas to drop its kernel,
    // and in the inbox's index of finished messages, which holds thread keys only and which the next retention sweep
    // compacts. (Before the deletion the adapter's remembered review posts named it too.)
    const holding = space
      ? (await redisKeysHolding(aliceThread, space)).map((key) => key.replace(/^.*?:(kv|list):/, ''))
      : sqliteEntries(join(environment.home, 'state.db'))
          .filter((entry) => entry.text.includes(aliceThread))
          .map((entry) => entry.name);
    expect(new Set(holding.map((where) => (/audit/.test(where) ? 'audit' : where)))).toEqual(
      new Set(['audit', 'forgotten-threads', 'inbox:all']),
    );
  });

  it("keeps Bob's session whole, with Alice's message there emptied, and his thread still answers", async () => {
    const bobThread = fixture.threadKey(bobTs);
    const session = await store().get<SessionRecord>(sessionKey(bobThread));
    expect(session?.owner).toBe(BOB);
    expect(JSON.stringify(session)).toContain(BOB_MARKER);
    const log = await store().range<LogEntry>(logKey(bobThread));
    expect(log).toContainEqual(
      expect.objectContaining({ kind: 'cell', author: 'human', code: `print("bob printed", "${BOB_MARKER}")` }),
    );
    const messages = log.flatMap((entry) => (entry.kind === 'message' ? [[entry.user, entry.text]] : []));
    expect(messages).toContainEqual([ALICE, REMOVED_TEXT]);
    expect(messages).toContainEqual([BOB, expect.stringContaining(BOB_MARKER)]);

    await reply(BOB, bobTs, 'Anything else about the contracts?');
    await botSays(bobTs, 'Bob, still here after the deletion.');
    // The running service wrote nothing of Alice's back meanwhile.
    expect(await scan(ALICE_TOKEN)).toEqual([]);
    expect(await scan(BOB_TOKEN)).not.toEqual([]);
  }, 90_000);

  it('audits exactly one deletion: who asked, the scope and the target, and no content', async () => {
    const audit = await tally(['audit', '--json'], cliEnv());
    expect(audit.code, audit.stderr).toBe(0);
    const records = audit.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditRecord);
    const deletions = records.filter((record) => record.kind === 'deletion');
    expect(deletions).toHaveLength(1);
    expect(deletions[0]?.deletion).toMatchObject({ requestedBy: OPERATOR, scope: 'user', target: ALICE });
    expect(hits(ALICE_TOKEN, audit.stdout, 'audit')).toEqual([]);
  });
});
