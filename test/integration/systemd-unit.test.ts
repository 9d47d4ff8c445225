/**
 * deploy/systemd/: the host service unit and its disk-quota drop-in, checked by systemd's own
 * `systemd-analyze` (verify: the unit loads with no warning; security: how exposed the service is,
 * and that every remaining exposure is one tally needs), and held against what tally does: the
 * shutdown grace, exit code 2, one store and one instance per command, the sandbox's user reading
 * /inputs. systemd-service.test.ts runs the unit under a real systemd.
 */
import { execFile } from 'node:child_process';
import { access, constants, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/base/config.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const UNIT = join(ROOT, 'deploy', 'systemd', 'tally@.service');
const DISK_QUOTA = join(ROOT, 'deploy', 'systemd', 'disk-quota.conf');
const NODE = '/usr/bin/node';

/** systemd-analyze from TALLY_TEST_SYSTEMD_ANALYZE or PATH; a missing one fails the test with what to do. */
async function systemdAnalyzePath(): Promise<string> {
  const configured = process.env.TALLY_TEST_SYSTEMD_ANALYZE;
  if (configured) {
    await access(configured, constants.X_OK).catch(() => {
      throw new Error(
        `TALLY_TEST_SYSTEMD_ANALYZE=${configured} is not an executable; fix the path or unset the variable.`,
      );
    });
    return configured;
  }
  try {
    return (await run('which', ['systemd-analyze'])).stdout.trim();
  } catch {
    throw new Error(
      "systemd-analyze is not installed, and this test checks deploy/systemd/ with it. Run 'bash scripts/ensure-systemd-analyze.sh' " +
        "(it installs Debian's systemd package as root), or put systemd-analyze on PATH, or set TALLY_TEST_SYSTEMD_ANALYZE to one.",
    );
  }
}

/** Runs systemd-analyze; its exit code and everything it printed. */
async function systemdAnalyze(...args: string[]): Promise<{ code: number; stdout: string; output: string }> {
  try {
    const { stdout, stderr } = await run(await systemdAnalyzePath(), args, { env: { ...process.env, LC_ALL: 'C' } });
    return { code: 0, stdout, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error; // could not run at all
    return { code: failed.code, stdout: failed.stdout ?? '', output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

/** A unit file's assignments, section by section, each key with its values in order. */
type UnitFile = Map<string, Map<string, string[]>>;

function parseUnit(text: string): UnitFile {
  const sections: UnitFile = new Map();
  let section: Map<string, string[]> | undefined;
  for (const line of text.split('\n').map((raw) => raw.trim())) {
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line)?.[1];
    if (header !== undefined) {
      section = sections.get(header) ?? new Map();
      sections.set(header, section);
      continue;
    }
    const [key = '', ...rest] = line.split('=');
    if (!section) throw new Error(`an assignment outside any section: ${line}`);
    section.set(key, [...(section.get(key) ?? []), rest.join('=')]);
  }
  return sections;
}

/** The last value of a key, as systemd applies a single-valued setting. */
function value(unit: UnitFile, section: string, key: string): string | undefined {
  return unit.get(section)?.get(key)?.at(-1);
}

/** A systemd time span ("45s", "10min") in milliseconds, as systemd itself reads it. */
async function timespanMs(span: string): Promise<number> {
  const { stdout } = await systemdAnalyze('timespan', span);
  const micros = /(?:μs|us): (\d+)/.exec(stdout)?.[1];
  if (micros === undefined) throw new Error(`systemd-analyze timespan ${span} printed ${stdout}`);
  return Number(micros) / 1000;
}

/** The options that give a service a mount namespace of its own, where a mount it makes stays. */
const MOUNT_NAMESPACE_OPTIONS = [
  'ProtectSystem',
  'ProtectHome',
  'PrivateTmp',
  'PrivateMounts',
  'PrivateDevices',
  'ProtectKernelTunables',
  'ProtectKernelModules',
  'ProtectKernelLogs',
  'ProtectControlGroups',
  'ProtectProc',
  'ProcSubset',
  'ReadWritePaths',
  'ReadOnlyPaths',
  'InaccessiblePaths',
  'TemporaryFileSystem',
  'BindPaths',
  'BindReadOnlyPaths',
];

/**
 * What `systemd-analyze security` may still count against the unit, and why tally needs it. Anything
 * else it finds unset is a hardening option the unit should set.
 */
const NEEDED_EXPOSURES: Record<string, string> = {
  'PrivateNetwork=': 'Slack, Discord, the model, the databases and Redis are over the network',
  'RestrictAddressFamilies=~AF_(INET|INET6)': 'the same, over TCP',
  'RestrictAddressFamilies=~AF_UNIX': "the Docker engine's socket",
  'IPAddressDeny=': 'the endpoints are configured per site, not known to the unit',
  'SupplementaryGroups=': "the docker group, for the engine's socket",
  'PrivateUsers=': 'the docker group must stay the host group the socket belongs to',
  'MemoryDenyWriteExecute=': "V8's JIT writes the code it runs",
  'SystemCallFilter=~@resources': 'Node raises its open-files limit with setrlimit',
  'UMask=': "the sandbox's user reads /inputs, which tally writes; the state folder itself is 0700",
  'RootDirectory=/RootImage=': 'tally runs from its checkout with the host node',
  'DeviceAllow=': 'ProtectClock= allows the clock device (read only)',
};

let folder: string;
let unit: UnitFile;

beforeAll(async () => {
  await systemdAnalyzePath();
  folder = await mkdtemp(join(tmpdir(), 'tally-systemd-unit-'));
  unit = parseUnit(await readFile(UNIT, 'utf8'));
});
afterAll(async () => {
  if (folder) await rm(folder, { recursive: true, force: true });
});

/**
 * The unit (and drop-ins) in a folder of their own, with ExecStart's node replaced by the one running
 * this test when the host has none at /usr/bin/node: verify checks that the binary exists. Returns
 * the path of the instance's unit file, which systemd loads from the template beside it.
 */
async function installCopy(name: string, instance: string, dropIns: Record<string, string> = {}): Promise<string> {
  const target = join(folder, name);
  await mkdir(join(target, 'tally@.service.d'), { recursive: true });
  const hasNode = await access(NODE, constants.X_OK).then(
    () => true,
    () => false,
  );
  const text = await readFile(UNIT, 'utf8');
  await writeFile(join(target, 'tally@.service'), hasNode ? text : text.replaceAll(NODE, process.execPath));
  for (const [file, content] of Object.entries(dropIns))
    await writeFile(join(target, 'tally@.service.d', file), content);
  return join(target, `tally@${instance}.service`);
}

describe('deploy/systemd/tally@.service, as systemd reads it', () => {
  it('loads as tally@slack and tally@discord with no warning, alone and with the disk-quota drop-in', async () => {
    const quota = await readFile(DISK_QUOTA, 'utf8');
    for (const instance of ['slack', 'discord']) {
      const alone = await systemdAnalyze('verify', await installCopy(`alone-${instance}`, instance));
      expect(alone.output).toBe('');
      expect(alone.code).toBe(0);
      const withQuota = await installCopy(`quota-${instance}`, instance, { 'disk-quota.conf': quota });
      const checked = await systemdAnalyze('verify', withQuota);
      expect(checked.output).toBe('');
      expect(checked.code).toBe(0);
    }
  });

  it('would report a mistake: the empty output above is not verify saying nothing at all', async () => {
    const broken = await installCopy('broken', 'slack', { 'typo.conf': '[Service]\nKillMode=mixd\nRestartSecs=1\n' });
    const result = await systemdAnalyze('verify', broken);
    expect(result.output).toContain('Failed to parse kill mode specification, ignoring: mixd');
    expect(result.output).toContain("Unknown key 'RestartSecs'");
  });

  it('is exposed at most 2.0 of 10, and only where tally needs it', async () => {
    const path = await installCopy('security', 'slack');
    const overall = await systemdAnalyze('security', '--offline=yes', '--threshold=20', path);
    expect(overall.code, overall.output).toBe(0);
    expect(Number(/Overall exposure level for tally@slack\.service: ([\d.]+)/.exec(overall.output)?.[1])).toBeLessThan(
      2.05,
    );

    const { stdout } = await systemdAnalyze('security', '--offline=yes', '--json=short', path);
    const checks = JSON.parse(stdout) as Array<{ name: string; set: boolean; exposure: string | null }>;
    expect(checks.length).toBeGreaterThan(50);
    const exposed = checks.filter((check) => !check.set && check.exposure !== null).map((check) => check.name);
    expect(exposed.filter((name) => !(name in NEEDED_EXPOSURES))).toEqual([]);
    // Each justification still applies: an exposure fixed since is removed from the list.
    expect(Object.keys(NEEDED_EXPOSURES).filter((name) => !exposed.includes(name))).toEqual([]);
  });

  it('with the disk-quota drop-in, stays in the OK band (below 5.0) despite root', async () => {
    const path = await installCopy('security-quota', 'slack', {
      'disk-quota.conf': await readFile(DISK_QUOTA, 'utf8'),
    });
    const result = await systemdAnalyze('security', '--offline=yes', '--threshold=49', path);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Service runs as root user/);
  });
});

describe('deploy/systemd/tally@.service, held against what tally does', () => {
  it('runs the instance as the command, from the checkout, with its environment file', () => {
    expect(value(unit, 'Service', 'ExecStart')).toBe(`${NODE} /opt/tally/scripts/tally.mjs %i`);
    expect(value(unit, 'Service', 'WorkingDirectory')).toBe('/opt/tally');
    expect(value(unit, 'Service', 'EnvironmentFile')).toBe('/etc/tally/%i.env');
    expect(value(unit, 'Service', 'User')).toBe('tally');
    expect(value(unit, 'Service', 'SupplementaryGroups')).toBe('docker');
    expect(value(unit, 'Install', 'WantedBy')).toBe('multi-user.target');
  });

  it('gives each command its own folder and instance, inside its state directory', () => {
    const environment = new Map(
      (unit.get('Service')?.get('Environment') ?? []).flatMap((line) =>
        line.split(/\s+/).map((pair) => pair.split('=') as [string, string]),
      ),
    );
    expect(environment.get('NODE_ENV')).toBe('production');
    expect(environment.get('TALLY_HOME')).toBe(`/var/lib/${value(unit, 'Service', 'StateDirectory')}`);
    expect(environment.get('TALLY_HOME')).toContain('%i');
    expect(environment.get('TALLY_INSTANCE')).toBe('%i');
    expect(environment.get('TALLY_SANDBOX_RUNTIME')).toBe('auto'); // gVisor when the host's engine lists runsc
    for (const command of ['slack', 'discord']) {
      const config = loadConfig({ TALLY_HOME: `/var/lib/tally/${command}`, TALLY_INSTANCE: command });
      expect(config.instance).toBe(command);
      expect(config.home).toBe(`/var/lib/tally/${command}`);
    }
    expect(value(unit, 'Service', 'StateDirectoryMode')).toBe('0700');
  });

  it("keeps the session's inputs readable by the sandbox's user", () => {
    // Workspace folders are made 0755 and input files 0644 (sandbox/workspace.ts); the kernel's user
    // owns neither, so the umask must leave "others" read and pass. 0022 is systemd's default.
    const umask = Number.parseInt(value(unit, 'Service', 'UMask') ?? '0022', 8);
    expect(0o755 & ~umask & 0o005).toBe(0o005);
    expect(0o644 & ~umask & 0o004).toBe(0o004);
  });

  it('stops tally as it expects: SIGTERM to node alone, with time for the shutdown grace', async () => {
    expect(value(unit, 'Service', 'KillSignal')).toBe('SIGTERM');
    expect(value(unit, 'Service', 'KillMode')).toBe('mixed');
    const graceMs = loadConfig({}).operations.shutdownGraceMs;
    const stopMs = await timespanMs(value(unit, 'Service', 'TimeoutStopSec') ?? 'unset');
    // Past the grace tally still disconnects and removes its kernels.
    expect(stopMs - graceMs).toBeGreaterThanOrEqual(10_000);
  });

  it('retries a failed start, exit code 2 included, but gives up within the start limit', async () => {
    expect(value(unit, 'Service', 'Restart')).toBe('on-failure');
    expect(unit.get('Service')?.has('RestartPreventExitStatus')).toBe(false);
    const restartMs = await timespanMs(value(unit, 'Service', 'RestartSec') ?? 'unset');
    const windowMs = await timespanMs(value(unit, 'Unit', 'StartLimitIntervalSec') ?? 'unset');
    const burst = Number(value(unit, 'Unit', 'StartLimitBurst'));
    expect(burst).toBeGreaterThanOrEqual(3);
    // A start that fails at once (a bad setting) must hit the limit, or it is retried forever.
    expect(burst * restartMs).toBeLessThan(windowMs);
    // An engine or Redis still booting has a while to come up.
    expect((burst - 1) * restartMs).toBeGreaterThanOrEqual(30_000);
  });

  it('lets the disk-quota drop-in take tally out of every mount namespace the unit sets up', async () => {
    const quota = parseUnit(await readFile(DISK_QUOTA, 'utf8'));
    const set = MOUNT_NAMESPACE_OPTIONS.filter((option) => unit.get('Service')?.has(option));
    expect(set.length).toBeGreaterThan(5);
    const left = set.filter(
      (option) => !['no', 'default', 'all', ''].includes(value(quota, 'Service', option) ?? 'unset'),
    );
    expect(left, 'options that keep a mount namespace under disk-quota.conf').toEqual([]);
    expect(value(quota, 'Service', 'User')).toBe('root');
    expect(value(quota, 'Service', 'CapabilityBoundingSet')).toContain('CAP_SYS_ADMIN');
    expect(quota.get('Service')?.get('SystemCallFilter')).toEqual(['', '@system-service @mount']);
  });
});
