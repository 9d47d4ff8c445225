/**
 * The tally image (deploy/Dockerfile) as an operator runs it: `docker run tally:latest ask …` with the
 * host's engine socket and TALLY_HOME mounted at the same path, against the scripted model server
 * (the container shares the host's network) and the demo database tally builds itself. Kernels are
 * real containers on the same engine; nothing of tally runs outside the image.
 */
import { randomBytes } from 'node:crypto';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callTool,
  type ScriptContext,
  type ScriptStep,
  say,
  startScriptedModelServer,
} from '../../src/demo/scripted-model-server.js';
import { containersOf, docker, requireSandboxImage } from '../support/docker.js';
import { type DockerRun, dockerCli, requireTallyImage, tallyRunArguments } from '../support/tally-image.js';

const IMAGE_USER = 10002;
/** What deploy/tally-service.yaml gives tally for the quota's loop mounts (all but shared propagation). */
const LOOP_DEVICE_OPTIONS = [
  ...['--user', '0:0', '--cap-add', 'SYS_ADMIN', '--security-opt', 'apparmor=unconfined', '-v', '/dev:/dev'],
  ...['--device-cgroup-rule', 'b 7:* rmw', '--device-cgroup-rule', 'c 10:237 rmw'],
];
const instance = `image-${randomBytes(4).toString('hex')}`;
let home: string;

const countRows = (): ScriptStep[] => [
  callTool('triage', { verdict: 'answerable' }),
  callTool('run_sql', { sql: 'SELECT COUNT(*) AS n FROM user_churn' }),
  (context: ScriptContext) =>
    say(`user_churn has ${/\b(\d+)\b/.exec(context.lastToolResult?.content ?? '')?.[1] ?? '?'} rows.`),
];

/** `docker run [options] tally:latest ask <question>` with `script` as the model. */
async function askInImage(options: string[], env: Record<string, string>, script: ScriptStep[]): Promise<DockerRun> {
  const model = await startScriptedModelServer({ script });
  try {
    const base = await tallyRunArguments(home, {
      TALLY_INSTANCE: instance,
      TALLY_SANDBOX_POOL_SIZE: '0',
      LOG_LEVEL: 'warn',
      LLM_BASE_URL: model.url,
      ...env,
    });
    return await dockerCli([
      ...base,
      '--network',
      'host',
      ...options,
      'tally:latest',
      'ask',
      'how many rows has user_churn?',
    ]);
  } finally {
    await model.close();
  }
}

beforeAll(async () => {
  await requireSandboxImage();
  await requireTallyImage();
  home = await mkdtemp(join(tmpdir(), 'tally-image-'));
  await chown(home, IMAGE_USER, IMAGE_USER); // the image's own user writes TALLY_HOME
}, 60_000);

afterAll(async () => {
  if (home) await rm(home, { recursive: true, force: true });
  expect(await containersOf(instance)).toEqual([]);
});

describe('the tally image', () => {
  it('runs tally as its own non-root user, with tini forwarding signals and no setting baked in', async () => {
    const { Config } = await docker.getImage('tally:latest').inspect();
    expect(Config.User).toBe(`${IMAGE_USER}:${IMAGE_USER}`);
    expect(Config.Entrypoint).toEqual(['/usr/bin/tini', '--', 'node', '/opt/tally/scripts/tally.mjs']);
    // No setting, let alone a secret, is baked in: they come from the environment at run time.
    const baked = Config.Env.map((variable) => variable.split('=')[0]).sort();
    expect(baked).toEqual(['DEBIAN_FRONTEND', 'LANG', 'LC_ALL', 'NODE_ENV', 'PATH', 'TALLY_HOME']);
    const version = await dockerCli(['run', '--rm', 'tally:latest', '--version']);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  }, 60_000);

  it('answers `tally ask` from the demo database on the host engine, non-root, and exits 0', async () => {
    const run = await askInImage([], {}, countRows());
    expect(run.code, run.stderr).toBe(0);
    const database = new Database(join(home, 'telco.db'), { readonly: true });
    const { n } = database.prepare('SELECT COUNT(*) AS n FROM user_churn').get() as { n: number };
    database.close();
    expect(n).toBeGreaterThan(0);
    expect(run.stdout).toContain(`user_churn has ${n} rows.`);
    // Not root: no filesystem per session, and the log says what is lost.
    expect(run.stderr).toContain('TALLY_SANDBOX_DISK_MB is not enforced');
  }, 240_000);

  it('says, as root without shared propagation, that the engine would not see its quota mounts', async () => {
    const run = await askInImage(LOOP_DEVICE_OPTIONS, {}, countRows());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('bind propagation rshared');
    expect(run.stdout).toMatch(/user_churn has \d+ rows\./);
  }, 240_000);

  it('exits 2 with one line, without the password, on a DATABASE_URL it cannot reach', async () => {
    const run = await askInImage([], { DATABASE_URL: 'mysql://analyst:s3cret-pw@127.0.0.1:1/telco' }, []);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toContain('DATABASE_URL');
    expect(run.stderr).not.toContain('s3cret-pw');
  }, 120_000);

  it('exits 2 naming TALLY_HOME when the engine cannot see it at the same path', async () => {
    const model = await startScriptedModelServer({ script: [] });
    try {
      const run = await dockerCli([
        'run',
        '--rm',
        '--network',
        'host',
        '--user',
        '0:0',
        '-v',
        '/var/run/docker.sock:/var/run/docker.sock',
        '-e',
        `TALLY_INSTANCE=${instance}`,
        '-e',
        `LLM_BASE_URL=${model.url}`,
        'tally:latest',
        'ask',
        'anything?',
      ]);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toContain('Mount TALLY_HOME at the same path on both sides');
    } finally {
      await model.close();
    }
  }, 120_000);
});
