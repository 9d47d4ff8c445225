/**
 * `/readyz` names the chat connection (`chat`): a replica whose Socket Mode or gateway connection is
 * down cannot receive a message, so it is not ready until the platform has it back. Real Bolt and
 * discord.js against the stand-ins, with the real engine, store, MariaDB and scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DiscordTallyFixture, startDiscordTallyFixture } from '../support/discord-tally-fixture.js';
import { type SlackTallyFixture, startSlackTallyFixture } from '../support/slack-tally-fixture.js';

interface Readiness {
  status: number;
  ready: boolean;
  checks: Record<string, { ok: boolean; error?: string }>;
}

async function readyz(opsUrl: string | undefined): Promise<Readiness> {
  if (!opsUrl) throw new Error('the ops server did not start');
  const response = await fetch(`${opsUrl}/readyz`);
  const body = (await response.json()) as Omit<Readiness, 'status'>;
  return { status: response.status, ...body };
}

/** Asks `/readyz` until it answers `status` (the connection moves in the background). */
async function readyzUntil(opsUrl: string | undefined, status: number): Promise<Readiness> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await readyz(opsUrl);
    if (answer.status === status || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const NOT_CONNECTED = 'not connected to the chat platform (connecting or reconnecting)';

describe('readiness on Slack (Socket Mode)', () => {
  let fixture: SlackTallyFixture;

  beforeAll(async () => {
    fixture = await startSlackTallyFixture([], { TALLY_HTTP_PORT: '0' });
  }, 120_000);

  afterAll(async () => {
    await fixture?.close();
  }, 60_000);

  it('is ready with the connection up, not while Slack cannot take it back, and ready again once it can', async () => {
    const opsUrl = fixture.service.tally.ops?.url;
    const up = await readyz(opsUrl);
    expect(up.status).toBe(200);
    expect(up.checks.chat).toMatchObject({ ok: true });

    // Slack drops the connection and, for now, hands out no new one.
    fixture.slack.failAlways('apps.connections.open', { error: 'internal_error' });
    await fixture.slack.disconnect();
    const down = await readyzUntil(opsUrl, 503);
    expect(down.status).toBe(503);
    expect(down.checks.chat).toEqual({ ok: false, error: NOT_CONNECTED, ms: expect.any(Number) });
    expect(down.checks.engine?.ok).toBe(true);
    expect(fixture.service.adapter.isConnected()).toBe(false);

    fixture.slack.failAlways('apps.connections.open', undefined);
    await fixture.slack.connected();
    const back = await readyzUntil(opsUrl, 200);
    expect(back.status).toBe(200);
    expect(back.checks.chat?.ok).toBe(true);
  }, 120_000);
});

describe('readiness on Discord (gateway)', () => {
  let fixture: DiscordTallyFixture;

  beforeAll(async () => {
    fixture = await startDiscordTallyFixture([], { TALLY_HTTP_PORT: '0' });
  }, 120_000);

  afterAll(async () => {
    fixture?.discord.releaseHello();
    await fixture?.close();
  }, 60_000);

  it('is ready with the gateway session up, not while it reconnects, and ready again once it resumed', async () => {
    const opsUrl = fixture.service.tally.ops?.url;
    const up = await readyz(opsUrl);
    expect(up.status).toBe(200);
    expect(up.checks.chat).toMatchObject({ ok: true });

    // Discord asks the client to reconnect, and the new connection waits for its HELLO.
    fixture.discord.holdHello();
    const resumed = fixture.discord.requestReconnect();
    const down = await readyzUntil(opsUrl, 503);
    expect(down.status).toBe(503);
    expect(down.checks.chat).toEqual({ ok: false, error: NOT_CONNECTED, ms: expect.any(Number) });

    fixture.discord.releaseHello();
    await resumed;
    const back = await readyzUntil(opsUrl, 200);
    expect(back.status).toBe(200);
    expect(back.checks.chat?.ok).toBe(true);
    expect(fixture.discord.gateway.resumes).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
