/**
 * deploy/systemd/tally@.service under a real systemd: PID 1 of a container (the test host's init is
 * not systemd), with this checkout's files at /opt/tally, this node at /usr/bin/node and the host's Docker
 * engine through its socket, as on a host. The unit is installed as an operator would; a drop-in of
 * the test's own only moves TALLY_HOME to a folder that has the same path on the host (kernels mount
 * their workspaces by path) and names the kernels' instance. `tally@demo` runs the demo: a command
 * that needs no chat platform or model, under the same ExecStart and hardening as `slack`.
 * Needs root: the host folder is made a shared mount, so that mounts made in the container reach the
 * engine as they would on a host.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp } from '../support/clean-up.js';
import { containersOf, docker, requireSandboxImage } from '../support/docker.js';
import { loopDevicesUnder, mountsUnder } from '../support/host-mounts.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const UNIT = join(ROOT, 'deploy', 'systemd', 'tally@.service');
const suffix = randomBytes(4).toString('hex');
const CONTAINER = `tally-systemd-test-${suffix}`;
/** The kernels' TALLY_INSTANCE, so that their containers are this test's alone. */
const INSTANCE = `systemd-${suffix}`;
/** Not under /tmp: the unit's PrivateTmp= would hide it from tally. */
const HOST_FOLDER = `/var/lib/tally-systemd-test-${suffix}`;
/**
 * What of this checkout goes to /opt/tally, each mounted on its own: the checkout's own folder may be
 * private to root (a fresh clone in a mktemp folder is 0700), and user tally must pass /opt/tally.
 */
const CHECKOUT = [
  ...['package.json', 'tsconfig.json', 'node_modules', 'src', 'adapters', 'sandbox'],
  ...['prompts', 'telco_data', 'eval', 'scripts', 'deploy'],
];
const RUN_TIMEOUT_MS = 150_000;
const TEST_TIMEOUT_MS = RUN_TIMEOUT_MS + 30_000;

/** systemd and what tally's disk quota runs; gettys and the like would reach for the host's /dev. */
const DOCKERFILE = (base: string) => `FROM ${base}
ENV DEBIAN_FRONTEND=noninteractive
RUN apt-get update -qq \\
 && apt-get install -y -qq --no-install-recommends systemd libstdc++6 e2fsprogs mount >/dev/null \\
 && rm -rf /var/lib/apt/lists/* \\
 && systemctl mask getty.target console-getty.service getty-static.service systemd-tmpfiles-setup-dev.service \\
      systemd-modules-load.service dev-hugepages.mount sys-fs-fuse-connections.mount sys-kernel-debug.mount \\
      sys-kernel-tracing.mount
CMD ["/lib/systemd/systemd"]
`;

async function command(file: string, args: string[]): Promise<string> {
  try {
    return (await run(file, args, { maxBuffer: 64 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { stderr?: string; message: string };
    throw new Error(`${file} ${args.slice(0, 3).join(' ')} failed: ${failed.stderr?.trim() || failed.message}`);
  }
}

/** A shell script as root in the container. */
const inside = (script: string) => command('docker', ['exec', CONTAINER, 'sh', '-c', script]);

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = RUN_TIMEOUT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** An image with systemd on the sandbox's base, built once per Dockerfile. */
async function systemdImage(): Promise<string> {
  const base = (await command('bash', [join(ROOT, 'sandbox', 'image', 'build-base.sh')])).trim().split('\n').pop();
  if (!base) throw new Error('sandbox/image/build-base.sh printed no base image');
  const dockerfile = DOCKERFILE(base);
  const tag = `tally-systemd-test:${createHash('sha256').update(dockerfile).digest('hex').slice(0, 12)}`;
  if (
    await docker
      .getImage(tag)
      .inspect()
      .then(
        () => true,
        () => false,
      )
  )
    return tag;
  const context = await mkdtemp(join(tmpdir(), 'tally-systemd-image-'));
  try {
    await writeFile(join(context, 'Dockerfile'), dockerfile);
    await command('docker', ['build', '-q', '-t', tag, context]);
  } finally {
    await rm(context, { recursive: true, force: true });
  }
  return tag;
}

/** The engine's socket on this host, mounted where the unit's user finds it. */
function engineSocket(): string {
  const configured = process.env.DOCKER_HOST;
  if (configured && !configured.startsWith('unix://')) {
    throw new Error(
      `DOCKER_HOST=${configured}: this test mounts the engine's socket into a container; use a local engine`,
    );
  }
  return configured ? configured.slice('unix://'.length) : '/var/run/docker.sock';
}

async function show(unit: string): Promise<Record<string, string>> {
  const text = await inside(
    `systemctl show ${unit} -p ActiveState -p SubState -p Result -p ExecMainStatus -p MainPID -p NRestarts`,
  );
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .map((line) => line.split('=', 2) as [string, string]),
  );
}

/** What the kernel says of the unit's main process while it runs. */
interface Process {
  pid: string;
  uid: string;
  groups: string[];
  mountNamespace: string;
}

async function mainProcess(unit: string): Promise<Process> {
  const pid = await waitFor(`${unit} to start`, async () => {
    const { MainPID } = await show(unit);
    return MainPID && MainPID !== '0' ? MainPID : undefined;
  });
  const [status = '', namespace = ''] = (
    await inside(`cat /proc/${pid}/status; echo ---; readlink /proc/${pid}/ns/mnt`)
  ).split('---\n');
  return {
    pid,
    uid: /^Uid:\s+(\d+)/m.exec(status)?.[1] ?? '',
    groups: (/^Groups:\s*(.*)$/m.exec(status)?.[1] ?? '').trim().split(/\s+/),
    mountNamespace: namespace.trim(),
  };
}

/** Starts a unit, reads its main process, watches the host's mounts meanwhile and waits for its end. */
async function runToEnd(unit: string) {
  await inside(`systemctl start ${unit}`);
  const main = await mainProcess(unit);
  const hostMounts = new Set<string>();
  const state = await waitFor(`${unit} to end`, async () => {
    for (const point of mountsUnder(HOST_FOLDER)) hostMounts.add(point);
    const now = await show(unit);
    // A run that failed is restarted (auto-restart): it has ended too, for the test.
    const ended = ['inactive', 'failed'].includes(now.ActiveState ?? '') || now.SubState === 'auto-restart';
    return ended ? now : undefined;
  });
  await inside(`systemctl stop ${unit}`);
  const journal = await inside(`journalctl --sync && journalctl --no-pager -o cat _PID=${main.pid}`);
  return { main, state, journal, hostMounts: [...hostMounts] };
}

/** The demo under the unit, its TALLY_HOME in the host folder; `extra` goes into the test's drop-in. */
async function installDemo(home: string, extra: string): Promise<void> {
  const dropIn = `[Service]\nEnvironment=TALLY_HOME=${HOST_FOLDER}/${home} TALLY_INSTANCE=${INSTANCE}\n${extra}`;
  await inside(
    `mkdir -p /etc/systemd/system/tally@demo.service.d && printf '%s' '${dropIn}' > /etc/systemd/system/tally@demo.service.d/test.conf && systemctl daemon-reload`,
  );
}

let pid1MountNamespace: string;
let dockerGid: string;
let tallyUid: string;

beforeAll(async () => {
  if (process.getuid?.() !== 0) {
    throw new Error('this test needs root: it makes a host folder a shared mount (run it as root, as CI does)');
  }
  await requireSandboxImage();
  const image = await systemdImage();
  const socket = engineSocket();
  dockerGid = String(statSync(socket).gid);
  await mkdir(HOST_FOLDER, { mode: 0o755 });
  await command('mount', ['--bind', HOST_FOLDER, HOST_FOLDER]);
  await command('mount', ['--make-shared', HOST_FOLDER]);
  // What systemd as PID 1 needs (not --privileged: it asks for every capability, and some hosts
  // withhold one), the loop devices of the disk quota, and the mounts the test shares with it.
  await command('docker', [
    ...['run', '-d', '--name', CONTAINER, '--cgroupns=host', '--tmpfs', '/run', '--tmpfs', '/run/lock'],
    ...['--cap-add', 'SYS_ADMIN', '--cap-add', 'SYS_PTRACE', '--cap-add', 'NET_ADMIN', '--cap-add', 'DAC_READ_SEARCH'],
    ...['--security-opt', 'seccomp=unconfined', '--security-opt', 'apparmor=unconfined'],
    ...['--device-cgroup-rule', 'b 7:* rwm', '--device-cgroup-rule', 'c 10:237 rwm', '-v', '/dev:/dev'],
    ...['-v', '/sys/fs/cgroup:/sys/fs/cgroup:rw'],
    ...CHECKOUT.flatMap((entry) => ['-v', `${join(ROOT, entry)}:/opt/tally/${entry}:ro`]),
    ...['-v', `${process.execPath}:/usr/bin/node:ro`, '-v', `${socket}:/run/docker.sock`],
    ...['-v', `${HOST_FOLDER}:${HOST_FOLDER}:rshared`, image],
  ]);
  await waitFor(
    'systemd to boot',
    async () => {
      const state = await inside('systemctl is-system-running || true').catch(() => '');
      return ['running', 'degraded'].includes(state.trim()) ? state : undefined;
    },
    60_000,
  );
  // The install steps of deploy/systemd/README.md, with the engine socket's group of this host.
  await inside(
    [
      `groupadd -o -g ${dockerGid} docker`,
      'useradd --system --user-group --home-dir /var/lib/tally --shell /usr/sbin/nologin tally',
      'install -d -m 0755 /etc/tally',
      'install -m 0644 /opt/tally/deploy/systemd/tally@.service /etc/systemd/system/',
      'systemctl daemon-reload',
      `chown tally:tally ${HOST_FOLDER}`,
    ].join(' && '),
  );
  tallyUid = (await inside('id -u tally')).trim();
  pid1MountNamespace = (await inside('readlink /proc/1/ns/mnt')).trim();
}, 300_000);

afterAll(async () => {
  await cleanUp(
    () => run('docker', ['rm', '-f', CONTAINER]).catch(() => {}),
    async () => {
      for (const container of await containersOf(INSTANCE))
        await docker.getContainer(container.Id).remove({ force: true });
    },
    async () => {
      for (const point of mountsUnder(HOST_FOLDER).reverse()) await run('umount', ['-l', point]);
      await run('umount', ['-l', HOST_FOLDER]).catch(() => {});
      await rm(HOST_FOLDER, { recursive: true, force: true });
    },
  );
});

describe('tally@.service under systemd', () => {
  it(
    'fails the start with exit code 2 on a bad setting in the environment file, retried up to the start limit',
    async () => {
      // Only the pause between starts is shortened, from RestartSec=15s; the limit is the unit's.
      await inside(
        [
          "printf 'TALLY_SANDBOX_CPUS=lots\\n' > /etc/tally/slack.env && chmod 0600 /etc/tally/slack.env",
          'mkdir -p /etc/systemd/system/tally@slack.service.d',
          "printf '[Service]\\nRestartSec=1s\\n' > /etc/systemd/system/tally@slack.service.d/test.conf",
          'systemctl daemon-reload && systemctl start tally@slack',
        ].join(' && '),
      );
      const state = await waitFor('tally@slack to give up', async () => {
        const now = await show('tally@slack');
        return now.ActiveState === 'failed' ? now : undefined;
      });
      expect(state.ExecMainStatus).toBe('2');
      const journal = await inside('journalctl --no-pager -o cat -u tally@slack');
      const burst = Number(/^StartLimitBurst=(\d+)$/m.exec(await readFile(UNIT, 'utf8'))?.[1]);
      // tally's one message per start names the variable; systemd stops at the limit and says so.
      expect(journal.match(/^\s*TALLY_SANDBOX_CPUS: /gm), journal).toHaveLength(burst);
      expect(journal).toContain('Start request repeated too quickly');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'runs tally as user tally in the docker group, its kernels on the host engine, under the whole hardening',
    async () => {
      await inside('install -m 0600 /dev/null /etc/tally/demo.env');
      // ProtectSystem=strict leaves only the unit's own state directory writable: add the test's.
      await installDemo('demo', `ReadWritePaths=${HOST_FOLDER}\n`);
      const { main, state, journal } = await runToEnd('tally@demo');

      expect(main.uid).toBe(tallyUid);
      expect(main.groups).toContain(dockerGid);
      expect(main.mountNamespace).not.toBe(pid1MountNamespace);
      expect(state.Result, journal).toBe('success');
      expect(state.ExecMainStatus).toBe('0');
      expect(journal).toContain('Report exported with 2 accepted section(s)');
      // A step that failed (e.g. a kernel that cannot read its /inputs) is a line starting with ✗.
      expect(journal).not.toMatch(/^✗/m);
      // Not root, no loop mounts: tally says the disk quota is not enforced, and runs without it.
      expect(journal).toContain('TALLY_SANDBOX_DISK_MB is not enforced');
      expect(existsSync(join(HOST_FOLDER, 'demo', 'demo', 'report', 'report.md'))).toBe(true);
      expect(await containersOf(INSTANCE)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'with disk-quota.conf runs as root in the mount namespace the engine sees, and enforces the quota',
    async () => {
      await inside(
        'mkdir -p /etc/systemd/system/tally@.service.d && install -m 0644 /opt/tally/deploy/systemd/disk-quota.conf /etc/systemd/system/tally@.service.d/',
      );
      // No ReadWritePaths= now: it would give the service a mount namespace of its own again.
      await installDemo('quota', '');
      const { main, state, journal, hostMounts } = await runToEnd('tally@demo');

      expect(main.uid).toBe('0');
      expect(main.mountNamespace).toBe(pid1MountNamespace);
      expect(state.Result, journal).toBe('success');
      expect(journal).toContain('Report exported with 2 accepted section(s)');
      expect(journal).not.toMatch(/^✗/m);
      expect(journal).not.toContain('is not enforced');
      // The session's filesystem was mounted where the host (and its engine) saw it, and is gone.
      expect(hostMounts.some((point) => point.startsWith(join(HOST_FOLDER, 'quota', 'workspaces')))).toBe(true);
      expect(mountsUnder(HOST_FOLDER)).toEqual([]);
      expect(loopDevicesUnder(HOST_FOLDER)).toEqual([]);
      expect(await containersOf(INSTANCE)).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
