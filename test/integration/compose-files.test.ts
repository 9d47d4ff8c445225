/**
 * Every combination of the compose files an operator may pass (deploy/compose.yaml with
 * compose.mariadb.yaml and compose.replicas.yaml) is valid for the machine's Compose command, and
 * merges into what the README promises: replicas with their own instance names and ports, all
 * scraped, secrets only from the env files. compose-stack.test.ts brings the stack up for real.
 */
import { execFile } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const run = promisify(execFile);
let dir: string;
let compose: string[];

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  ports?: unknown[];
  volumes?: unknown[];
  env_file?: unknown;
  privileged?: boolean;
  depends_on?: Record<string, { condition: string }>;
}

async function config(files: string[], envFile = 'tally.env'): Promise<Record<string, Service>> {
  const [command = 'docker-compose', ...prefix] = compose;
  const flags = ['compose.yaml', ...files].flatMap((file) => ['-f', file]);
  const { stdout } = await run(command, [...prefix, ...flags, '--env-file', envFile, 'config'], { cwd: dir });
  return (parse(stdout) as { services: Record<string, Service> }).services;
}

beforeAll(async () => {
  compose = (await run('bash', [join(ROOT, 'scripts', 'ensure-compose.sh')])).stdout.trim().split(' ');
  dir = await mkdtemp(join(tmpdir(), 'tally-compose-files-'));
  cpSync(join(ROOT, 'deploy'), dir, { recursive: true, filter: (source) => !source.endsWith('.env') });
  // What the README tells the operator to do: copy the examples and fill in the secrets.
  for (const name of ['tally', 'mariadb']) {
    const example = await readFile(join(dir, `${name}.env.example`), 'utf8');
    writeFileSync(join(dir, `${name}.env`), example.replace(/^(\w+(?:PASSWORD|TOKEN|KEY))=$/gm, '$1=secret-value'));
  }
  const slack = await readFile(join(dir, 'tally.env'), 'utf8');
  writeFileSync(join(dir, 'discord.env'), slack.replace(/^TALLY_CHAT=slack$/m, 'TALLY_CHAT=discord'));
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the compose files', () => {
  it('compose.yaml alone: tally (not privileged), Redis and Prometheus, secrets from tally.env only', async () => {
    const services = await config([]);
    expect(Object.keys(services).sort()).toEqual(['prometheus', 'redis', 'tally']);
    const tally = services.tally as Service;
    expect(tally.privileged ?? false).toBe(false);
    expect(tally.environment?.TALLY_INSTANCE).toBe('tally-1');
    expect(tally.environment?.REDIS_URL).toBe('redis://redis:6379');
    expect(tally.environment?.TALLY_SANDBOX_RUNTIME).toBe('auto'); // from tally.env: gVisor when the engine lists runsc
    expect(tally.environment?.SLACK_BOT_TOKEN).toBe('secret-value'); // from the env file, at run time
    expect(tally.depends_on?.redis?.condition).toBe('service_healthy');
    for (const file of ['compose.yaml', 'tally-service.yaml', 'compose.mariadb.yaml', 'compose.replicas.yaml']) {
      expect(await readFile(join(ROOT, 'deploy', file), 'utf8')).not.toMatch(/(PASSWORD|TOKEN|API_KEY)\s*[:=]\s*\S/);
    }
  });

  it('serves the chat the env file names: Slack by default, Discord with TALLY_CHAT=discord', async () => {
    expect((await config([])).tally?.command).toEqual(['slack']);
    const discord = await config(['compose.replicas.yaml'], 'discord.env');
    expect([discord.tally?.command, discord['tally-2']?.command]).toEqual([['discord'], ['discord']]);
  });

  it('with compose.replicas.yaml: a second tally with its own instance and port, scraped too', async () => {
    const services = await config(['compose.replicas.yaml']);
    const [one, two] = [services.tally, services['tally-2']] as Service[];
    expect(two?.environment?.TALLY_INSTANCE).toBe('tally-2');
    expect(JSON.stringify(two?.ports)).not.toBe(JSON.stringify(one?.ports));
    expect(JSON.stringify(services.prometheus?.volumes)).toContain('/etc/prometheus/replica-targets');
  });

  it('with compose.mariadb.yaml (and replicas): the demo database loads before tally starts', async () => {
    const services = await config(['compose.mariadb.yaml', 'compose.replicas.yaml']);
    expect(services.tally?.depends_on?.['telco-load']?.condition).toBe('service_completed_successfully');
    expect(services['telco-load']?.depends_on?.mariadb?.condition).toBe('service_healthy');
    // The root password reaches MariaDB and the loader, never tally.
    expect(services.tally?.environment?.MARIADB_ROOT_PASSWORD).toBeUndefined();
    expect(services['telco-load']?.environment?.MARIADB_ROOT_PASSWORD).toBe('secret-value');
  });
});
