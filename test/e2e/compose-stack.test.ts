/**
 * The compose stack as an operator brings it up (deploy/compose.yaml with compose.mariadb.yaml): the
 * tally image serving Slack, Redis, Prometheus, and MariaDB with the demo database loaded by the
 * telco-load service. The Slack stand-in and the scripted model run on this host and are reached from
 * the containers as host.docker.internal (the test's own override adds only that and an instance
 * name). Kernels are real containers on the host's engine, started by tally from inside its container.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  type ScriptedModelServer,
  type ScriptStep,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { baseImage, type ComposeStack, createComposeStack, hostGateway } from '../support/compose-stack.js';
import { containersOf, requireSandboxImage } from '../support/docker.js';
import { freePort } from '../support/free-port.js';
import { heldReply } from '../support/held-reply.js';
import { type SlackStandIn, startSlackStandIn } from '../support/slack/slack-stand-in.js';
import { dockerCli, requireTallyImage } from '../support/tally-image.js';

const CHANNEL = 'C1ANALYTICS';
const ANN = 'U1ANN';
const instance = `stack-${randomBytes(4).toString('hex')}`;
const roPassword = randomBytes(12).toString('hex');

let stack: ComposeStack;
let slack: SlackStandIn;
let model: ScriptedModelServer;
let opsPort = 0;
let prometheusPort = 0;
let upToReadyMs = 0;
/** Released when the process is dead: the model's reply it waited on never reaches it. */
const hung = heldReply('this reply goes to a dead container');

const script: ScriptStep[] = [
  // First mention: a count from MariaDB, through tally's read-only user.
  callTool('triage', { verdict: 'answerable' }),
  callTool('run_sql', { sql: 'SELECT COUNT(*) AS n FROM user_churn' }),
  (context) => say(`user_churn has ${/\b(\d+)\b/.exec(context.lastToolResult?.content ?? '')?.[1] ?? '?'} rows.`),
  // Second mention: the tally container is killed while this turn waits on the model.
  callTool('triage', { verdict: 'answerable' }),
  callTool('run_python', { code: 'x = 41' }),
  hung.step,
  callTool('run_python', { code: 'print(x + 1)' }),
  (context) => say(`The answer is ${context.lastToolResult?.content.match(/\d+/)?.[0]}.`),
];

const botTexts = (threadTs: string) =>
  slack
    .messages(CHANNEL, threadTs)
    .filter((message) => message.user === slack.ids.botUserId)
    .map((message) => message.text);

async function waitUntil<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

const ready = () =>
  waitUntil(
    async () =>
      (await fetch(`http://127.0.0.1:${opsPort}/readyz`, { signal: AbortSignal.timeout(5000) })).status === 200
        ? true
        : undefined,
    240_000,
    '/readyz',
  );

beforeAll(async () => {
  await requireSandboxImage();
  const gateway = await hostGateway(await requireTallyImage());
  const reachable = { host: gateway, advertisedHost: 'host.docker.internal' };
  slack = await startSlackStandIn({ ...reachable, channels: [{ id: CHANNEL, name: 'analytics' }] });
  model = await startScriptedModelServer({ ...reachable, script });
  opsPort = await freePort();
  prometheusPort = await freePort();
  stack = await createComposeStack({
    files: ['compose.mariadb.yaml'],
    tallyEnv: {
      TALLY_CHAT: 'slack',
      TALLY_BASE_IMAGE: await baseImage(),
      TALLY_OPS_PORT: String(opsPort),
      TALLY_PROMETHEUS_PORT: String(prometheusPort),
      SLACK_BOT_TOKEN: slack.botToken,
      SLACK_APP_TOKEN: slack.appToken,
      SLACK_API_URL: slack.apiUrl,
      SLACK_ALLOWED_CHANNELS: CHANNEL,
      LLM_BASE_URL: model.url,
      LLM_API_KEY: 'sk-stack-test',
      DATABASE_URL: `mysql://tally_ro:${roPassword}@mariadb:3306/telco_db`,
      TALLY_LOCK_TTL_MS: '3000',
      TALLY_SANDBOX_POOL_SIZE: '0',
    },
    mariadbEnv: { MARIADB_ROOT_PASSWORD: randomBytes(12).toString('hex'), TALLY_RO_PASSWORD: roPassword },
    override: [
      'services:',
      '  tally:',
      '    extra_hosts: ["host.docker.internal:host-gateway"]',
      `    environment: { TALLY_INSTANCE: ${instance} }`,
      '',
    ].join('\n'),
  });
  const built = await stack.compose(['build'], 900_000);
  if (built.code !== 0) throw new Error(`compose build failed: ${built.stderr.slice(-2000)}`);
  const startedAt = Date.now();
  const up = await stack.compose(['up', '-d']);
  if (up.code !== 0) throw new Error(`compose up failed: ${up.stderr.slice(-1000)}\n${await stack.logs()}`);
  await ready().catch(async (error: unknown) => {
    throw new Error(`${String(error)}\n${await stack.logs()}`);
  });
  upToReadyMs = Date.now() - startedAt;
  console.info(`compose up to /readyz 200: ${(upToReadyMs / 1000).toFixed(1)} s (images built beforehand)`);
}, 1_200_000);

afterAll(async () => {
  hung.release();
  await stack?.remove();
  await slack?.close();
  await model?.close();
}, 240_000);

describe('the compose stack', () => {
  it('is ready through the published port, enforces the disk quota, keeps Redis on disk, and Prometheus scrapes tally', async () => {
    expect(upToReadyMs).toBeGreaterThan(0);
    const metrics = await (await fetch(`http://127.0.0.1:${opsPort}/metrics`)).text();
    // Root, privileged and shared propagation: each session gets its own filesystem the engine sees.
    expect(metrics).toMatch(/^tally_sandbox_disk_quota_enforced 1$/m);
    const target = await waitUntil(
      async () => {
        const response = await fetch(`http://127.0.0.1:${prometheusPort}/api/v1/targets`, {
          signal: AbortSignal.timeout(5000),
        });
        const body = (await response.json()) as {
          data: { activeTargets: { labels: Record<string, string>; health: string }[] };
        };
        return body.data.activeTargets.find((active) => active.labels.job === 'tally' && active.health === 'up');
      },
      90_000,
      'Prometheus to scrape tally',
    );
    expect(target.labels.instance).toBe('tally:9464');
    // Redis keeps tally's store on its volume: every write goes to its append-only file.
    const appendonly = await stack.compose(['exec', '-T', 'redis', 'redis-cli', 'config', 'get', 'appendonly']);
    expect(appendonly.stdout.trim().split(/\s+/)).toEqual(['appendonly', 'yes']);
  }, 120_000);

  it('answers a mention in its thread from MariaDB, through the read-only user', async () => {
    await slack.connected();
    const threadTs = await slack.mention({ user: ANN, channel: CHANNEL, text: 'how many rows has user_churn?' });
    await slack.waitFor(() => botTexts(threadTs).some((text) => text.startsWith('user_churn has')), 120_000);
    const counted = await stack.compose([
      'exec',
      '-T',
      'mariadb',
      'mariadb',
      '-N',
      '-e',
      'SELECT COUNT(*) FROM telco_db.user_churn',
    ]);
    expect(counted.code, counted.stderr).toBe(0);
    expect(botTexts(threadTs)).toContain(`user_churn has ${counted.stdout.trim()} rows.`);
  }, 180_000);

  it('a crashed tally (its process killed) is brought back by the restart policy', async () => {
    const id = await stack.containerOf('tally');
    const inspect = async (format: string) => (await dockerCli(['inspect', '-f', format, id])).stdout.trim();
    const restarts = Number(await inspect('{{.RestartCount}}'));
    // PID 1 is tini; tally's node is its only child. SIGKILL leaves it no chance to clean up.
    const tini = await inspect('{{.State.Pid}}');
    const node = (await readFile(`/proc/${tini}/task/${tini}/children`, 'utf8')).trim().split(' ')[0];
    process.kill(Number(node), 'SIGKILL');
    await waitUntil(
      async () => (Number(await inspect('{{.RestartCount}}')) > restarts ? true : undefined),
      60_000,
      'the engine to restart tally',
    );
    await ready();
  }, 120_000);

  it('killed mid-turn (docker kill), the restarted container finishes the message, once', async () => {
    const threadTs = await slack.mention({ user: ANN, channel: CHANNEL, text: 'what is x plus one?' });
    await hung.reached;
    const id = await stack.containerOf('tally');
    expect((await dockerCli(['kill', id])).code).toBe(0);
    hung.release();
    // `docker kill` counts as an operator's stop: the restart policy leaves it stopped; start it again.
    const started = await stack.compose(['start', 'tally']);
    expect(started.code, started.stderr).toBe(0);
    await ready();
    await slack.waitFor(() => botTexts(threadTs).some((text) => text.startsWith('The answer is')), 120_000);
    const texts = botTexts(threadTs);
    expect(texts.filter((text) => text === 'tally restarted while working on this; continuing.')).toHaveLength(1);
    expect(texts.filter((text) => text.startsWith('The answer is'))).toEqual(['The answer is 42.']);
    expect(texts.join('\n')).not.toContain('dead container');
  }, 300_000);

  it('`down` stops tally gracefully and leaves no kernel container', async () => {
    expect((await containersOf(instance)).length).toBeGreaterThan(0); // the thread's kernel
    const down = await stack.compose(['down'], 180_000);
    expect(down.code, down.stderr).toBe(0);
    expect(await containersOf(instance)).toEqual([]);
  }, 200_000);
});
