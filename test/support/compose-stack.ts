/**
 * The deployment stack (deploy/compose*.yaml) brought up by the test as an operator would: a copy of
 * deploy/ with its env files written, run by the machine's Compose command (scripts/ensure-compose.sh)
 * under a project name of its own, on a TALLY_DATA folder that is a shared mount (as `/` is on a
 * systemd host), so the loop mounts tally makes in its container reach the engine.
 */
import { randomBytes } from 'node:crypto';
import { cpSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DockerRun, dockerCli, runCommand } from './tally-image.js';

const ROOT = join(import.meta.dirname, '..', '..');
/** Must succeed: the command's output on failure. */
async function must(command: string, args: string[], cwd = ROOT, timeoutMs = 120_000): Promise<string> {
  const result = await runCommand(command, args, cwd, timeoutMs);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout.trim();
}

/** The host's address that `host-gateway` names inside containers (read from a container's /etc/hosts). */
export async function hostGateway(image: string): Promise<string> {
  const args = [
    'run',
    '--rm',
    '--network',
    'none',
    '--add-host',
    'tally-host:host-gateway',
    '--entrypoint',
    'cat',
    image,
    '/etc/hosts',
  ];
  const result = await dockerCli(args);
  const address = /^(\S+)\s+tally-host$/m.exec(result.stdout)?.[1];
  if (result.code !== 0 || !address) throw new Error(`no host-gateway address: ${result.stderr}`);
  return address;
}

/** The base image the service images build on (pulled or debootstrapped, as `npm run image` does). */
export function baseImage(): Promise<string> {
  return must('bash', [join(ROOT, 'sandbox', 'image', 'build-base.sh')], ROOT, 600_000).then(
    (out) => out.split('\n').pop() ?? '',
  );
}

export interface ComposeStackOptions {
  /** deploy/ files to use besides compose.yaml, e.g. `compose.mariadb.yaml`. */
  files: string[];
  /** tally.env: what the operator writes (TALLY_DATA is set here). */
  tallyEnv: Record<string, string>;
  mariadbEnv?: Record<string, string>;
  /** A last compose file of the test's own, e.g. extra_hosts to reach the stand-ins. */
  override: string;
}

export interface ComposeStack {
  readonly project: string;
  /** TALLY_DATA: a shared mount, at the same path in tally's containers. */
  readonly data: string;
  compose(args: string[], timeoutMs?: number): Promise<DockerRun>;
  /** The id of a service's container. */
  containerOf(service: string): Promise<string>;
  /** The last lines each service logged, to explain a failure. */
  logs(): Promise<string>;
  /** `down -v`, then the folders and the shared mount go. */
  remove(): Promise<void>;
}

const envFile = (values: Record<string, string>) =>
  Object.entries(values)
    .map(([name, value]) => `${name}=${value}\n`)
    .join('');

export async function createComposeStack(options: ComposeStackOptions): Promise<ComposeStack> {
  const [command = 'docker-compose', ...prefix] = (
    await must('bash', [join(ROOT, 'scripts', 'ensure-compose.sh')])
  ).split(' ');
  const dir = await mkdtemp(join(tmpdir(), 'tally-stack-'));
  const data = await mkdtemp(join(tmpdir(), 'tally-data-'));
  await must('mount', ['--bind', data, data]);
  await must('mount', ['--make-shared', data]);
  cpSync(join(ROOT, 'deploy'), dir, { recursive: true, filter: (source) => !source.endsWith('.env') });
  writeFileSync(join(dir, 'tally.env'), envFile({ ...options.tallyEnv, TALLY_DATA: data }), { mode: 0o600 });
  writeFileSync(join(dir, 'mariadb.env'), envFile(options.mariadbEnv ?? {}), { mode: 0o600 });
  writeFileSync(join(dir, 'compose.test.yaml'), options.override);
  const project = `tallytest${randomBytes(4).toString('hex')}`;
  const files = ['compose.yaml', ...options.files, 'compose.test.yaml'].flatMap((file) => ['-f', file]);
  const compose = (args: string[], timeoutMs = 600_000) =>
    runCommand(command, [...prefix, '-p', project, ...files, '--env-file', 'tally.env', ...args], dir, timeoutMs);
  return {
    project,
    data,
    compose,
    containerOf: async (service) => (await compose(['ps', '-q', service])).stdout.trim(),
    logs: async () => (await compose(['logs', '--no-color', '--tail', '20'])).stdout,
    remove: async () => {
      await compose(['down', '-v', '--remove-orphans'], 180_000);
      await runCommand('umount', ['--lazy', data], ROOT, 30_000);
      await rm(data, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    },
  };
}
