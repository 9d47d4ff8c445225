/**
 * Hostile code in the sandbox. Each scenario checks the attack was contained AND that the kernel
 * still runs a cell afterwards with its earlier variables.
 */

import type Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Execution, Kernel } from '../../src/ports/sandbox.js';
import { containersOf, docker } from '../support/docker.js';
import { startTestSandbox, type TestSandbox } from '../support/sandbox-fixture.js';

const SECRET = 'sk-test-d0-not-leak-9f8e7d';
/** The setuid programs of Debian bookworm's base the sandbox image is built on (sandbox/image/Dockerfile). */

let fixture: TestSandbox;
let kernel: Kernel;

/** Runs a cell that leaves a dict of findings in `verdict`, and returns it. */
async function probe(code: string, timeoutMs?: number): Promise<Record<string, unknown>> {
  const run = `${code}\nimport json as _json\nprint("VERDICT" + _json.dumps(verdict))`;
  const execution = await kernel.run(run, timeoutMs ? { timeoutMs } : {});
  expect(execution.error, execution.error?.traceback).toBeUndefined();
  const line = execution.stdout.split('\n').find((text) => text.startsWith('VERDICT')) ?? '';
  return JSON.parse(line.slice('VERDICT'.length)) as Record<string, unknown>;
}

/** The container's CPU time so far and when it was read, from the engine's stats (its cgroup). */
async function cpuUsage(container: Docker.Container): Promise<{ cpuNs: number; atNs: number }> {
  const stats = (await container.stats({ stream: false })) as {
    read: string;
    cpu_stats: { cpu_usage: { total_usage: number } };
  };
  return { cpuNs: stats.cpu_stats.cpu_usage.total_usage, atNs: Date.parse(stats.read) * 1e6 };
}

async function expectWorking(): Promise<void> {
  const execution = await kernel.run('canary + "!"');
  expect(execution.error).toBeUndefined();
  expect(execution.result?.text).toBe("'alive!'");
}

/** Every process of the sandbox not yet a zombie: pid, state and command line. */
async function liveProcesses(): Promise<Array<{ pid: number; state: string; cmdline: string }>> {
  const verdict = await probe(`
import os
live = []
for pid in (p for p in os.listdir("/proc") if p.isdigit()):
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        cmdline = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\\0", b" ").decode(errors="replace")
    except OSError:
        continue
    if state != "Z":
        live.append({"pid": int(pid), "state": state, "cmdline": cmdline[:80]})
verdict = {"live": live}`);
  return verdict.live as Array<{ pid: number; state: string; cmdline: string }>;
}

function failed(execution: Execution): string {
  return `${execution.error?.name}: ${execution.error?.value}`;
}

describe.each([
  // runc: the cgroup files are there and refused; the pid namespace's init ignores SIGKILL from inside; a fork
  // bomb meets the pids limit. gVisor: no cgroupfs at all; init killed from inside ends the sandbox, which tally
  // restarts and replays; a forked Python costs ~20 MiB, so a fork bomb may run out of memory first (restarted too).
  {
    runtime: 'runc',
    cgroupOutcomes: ['EROFS', 'EACCES', 'EPERM'],
    killingInit: "'init survived'",
    forkBombEnds: ['BlockingIOError', 'TimeoutError'],
  },
  {
    runtime: 'runsc',
    cgroupOutcomes: ['missing'],
    killingInit: 'KernelDied',
    forkBombEnds: ['BlockingIOError', 'TimeoutError', 'KernelDied'],
  },
])('the sandbox under $runtime contains', ({ runtime, cgroupOutcomes, killingInit, forkBombEnds }) => {
  beforeAll(async () => {
    process.env.TALLY_TEST_SECRET = SECRET;
    process.env.LLM_API_KEY = SECRET;
    fixture = await startTestSandbox({
      runtime,
      limits: { memoryMb: 384, cpus: 0.5, pidsLimit: 96, fileSizeMb: 64 },
      cellTimeoutMs: 20_000,
    });
    kernel = await fixture.sandbox.acquire('attacker');
    await kernel.run('canary = "alive"');
  });
  afterAll(async () => {
    delete process.env.TALLY_TEST_SECRET;
    delete process.env.LLM_API_KEY;
    await fixture?.close();
  });

  it('TCP egress to an outside address', async () => {
    // Checks first that only loopback exists, so no packet could leave even if the connect went wrong.
    const verdict = await probe(`
import os, socket
verdict = {"interfaces": sorted(os.listdir("/sys/class/net")), "routes": open("/proc/net/route").read().splitlines()[1:]}
if verdict["interfaces"] == ["lo"] and not verdict["routes"]:
    try:
        socket.create_connection(("192.0.2.1", 80), timeout=2)
        verdict["connected"] = True
    except OSError as error:
        verdict["connected"] = False
        verdict["error"] = type(error).__name__ + ": " + str(error)`);
    expect(verdict.interfaces).toEqual(['lo']);
    expect(verdict.routes).toEqual([]);
    expect(verdict.connected).toBe(false);
    expect(verdict.error).toMatch(/unreachable|no route to host/i); // runc: ENETUNREACH; gVisor: EHOSTUNREACH
    await expectWorking();
  });

  it('reaching services on the host loopback (MariaDB, Redis)', async () => {
    const verdict = await probe(`
import socket
verdict = {}
for port in (3306, 6379):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        verdict[str(port)] = "open"
    except OSError as error:
        verdict[str(port)] = type(error).__name__`);
    expect(verdict).toEqual({ '3306': 'ConnectionRefusedError', '6379': 'ConnectionRefusedError' });
    await expectWorking();
  });

  it('DNS lookups', async () => {
    const verdict = await probe(`
import socket
try:
    socket.getaddrinfo("example.com", 443)
    verdict = {"resolved": True}
except OSError as error:
    verdict = {"resolved": False, "error": type(error).__name__}`);
    expect(verdict).toEqual({ resolved: false, error: 'gaierror' });
    await expectWorking();
  });

  it('reading the host environment or its secrets', async () => {
    const verdict = await probe(`
import os, glob
secret = ${JSON.stringify(SECRET)}
found = [name for name, value in os.environ.items() if secret in value]
for path in glob.glob("/proc/[0-9]*/environ"):
    try:
        if secret.encode() in open(path, "rb").read():
            found.append(path)
    except OSError:
        pass
verdict = {"found": found, "names": sorted(os.environ)}`);
    expect(verdict.found).toEqual([]);
    expect(verdict.names).not.toContain('LLM_API_KEY');
    expect(verdict.names).not.toContain('TALLY_TEST_SECRET');
    expect(verdict.names).not.toContain('DOCKER_HOST');
    await expectWorking();
  });

  it('writing outside the workspace, including over the driver', async () => {
    const verdict = await probe(`
import errno, hashlib
driver = "/opt/tally/kernel/driver.py"
before = hashlib.sha256(open(driver, "rb").read()).hexdigest()
verdict = {}
for path in (driver, "/etc/passwd", "/root/x", "/usr/local/bin/evil", "/var/tmp/x", "/inputs/x"):
    try:
        open(path, "a").write("pwned")
        verdict[path] = "written"
    except OSError as error:
        verdict[path] = errno.errorcode.get(error.errno, str(error.errno))
verdict["driver_unchanged"] = hashlib.sha256(open(driver, "rb").read()).hexdigest() == before`);
    expect(verdict).toEqual({
      // Files and folders that exist belong to root: refused on permissions first.
      '/opt/tally/kernel/driver.py': 'EACCES',
      '/etc/passwd': 'EACCES',
      '/root/x': 'EACCES',
      // New files anywhere else: the root filesystem and /inputs are mounted read-only. In root's folders
      // gVisor checks the permission before the mount (EACCES); in a folder anyone may write, the mount refuses.
      '/usr/local/bin/evil': expect.stringMatching(/^(EROFS|EACCES)$/),
      '/var/tmp/x': 'EROFS',
      '/inputs/x': expect.stringMatching(/^(EROFS|EACCES)$/),
      driver_unchanged: true,
    });
    await expectWorking();
  });

  it('writing to the root filesystem, even where the user owns the folder', async () => {
    const verdict = await probe(`
import errno, os
verdict = {}
for path in ("/etc/passwd", "/usr/bin/evil", "/bin/sh"):
    try:
        open(path, "a").write("x")
        verdict[path] = "written"
    except OSError as error:
        verdict[path] = errno.errorcode.get(error.errno, str(error.errno))
import subprocess
verdict["mounts"] = [line.split()[1] for line in open("/proc/mounts") if " / " in line and "ro," in line]`);
    expect(verdict['/etc/passwd']).toMatch(/EROFS|EACCES/);
    expect(verdict['/usr/bin/evil']).toMatch(/EROFS|EACCES/);
    expect(verdict['/bin/sh']).toMatch(/EROFS|EACCES/);
    expect(verdict.mounts).toEqual(['/']);
    await expectWorking();
  });

  it('one file larger than the per-file limit in /workspace', async () => {
    // The per-file limit; the total is the disk quota's (disk-quota.test.ts).
    const verdict = await probe(`
import errno, os
verdict = {}
try:
    with open("huge.bin", "wb") as f:
        for _ in range(100):
            f.write(b"x" * (1024 * 1024))
    verdict["error"] = None
except OSError as error:
    verdict["error"] = errno.errorcode.get(error.errno)
verdict["size"] = os.path.getsize("huge.bin")
os.remove("huge.bin")`);
    expect(verdict).toEqual({ error: 'EFBIG', size: 64 * 1024 * 1024 });
    await expectWorking();
  });

  it('a fork bomb', async () => {
    const execution = await kernel.run('import os\nwhile True:\n    os.fork()', { timeoutMs: 15_000 });
    expect(execution.error, failed(execution)).toBeDefined();
    expect(forkBombEnds).toContain(execution.error?.name);
    if (execution.error?.name === 'KernelDied') expect(execution.restarted?.oomLikely).toBe(true);
    // Live processes (zombies excluded: init reaps them a moment later) are back to init and the driver.
    // On a busy machine the last ones can take a while to die (a SIGKILL waits for a process stuck in
    // the kernel), so the test looks again for up to a minute and names what is left.
    const deadline = Date.now() + 60_000;
    let survivors = await liveProcesses();
    while (survivors.length > 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      survivors = await liveProcesses();
    }
    expect(survivors.length, JSON.stringify(survivors)).toBe(2);
    await expectWorking();
  }, 120_000);

  it('a fork bomb that survives its own failures', async () => {
    const execution = await kernel.run(
      'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass',
      { timeoutMs: 3000 },
    );
    // It catches its own BlockingIOError, so it ends at the time limit, or out of memory where that comes first.
    expect(forkBombEnds.filter((name) => name !== 'BlockingIOError')).toContain(execution.error?.name);
    if (execution.error?.name === 'KernelDied') expect(execution.restarted?.oomLikely).toBe(true);
    await expectWorking();
  });

  it('a memory bomb', async () => {
    const execution = await kernel.run('blocks = []\nwhile True:\n    blocks.append(b"x" * (64 * 1024 * 1024))');
    expect(['MemoryError', 'KernelDied']).toContain(execution.error?.name);
    if (execution.error?.name === 'KernelDied') expect(execution.restarted?.oomLikely).toBe(true);
    await expectWorking();
  });

  it('a CPU hog, held to its share', async () => {
    // Three busy processes would use ~2 CPUs of this 2-core machine unlimited; the limit is 0.5. Measured
    // from the host (the container's cgroup), since gVisor's /proc inside counts its own way.
    const hog = kernel.run(
      'import subprocess, sys, time\nprocs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(3)]\ntime.sleep(8)\nfor p in procs:\n    p.kill(); p.wait()',
    );
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const [first] = await containersOf(fixture.instance);
    const container = docker.getContainer(first?.Id ?? 'none');
    const before = await cpuUsage(container);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = await cpuUsage(container);
    expect((await hog).error).toBeUndefined();
    expect((after.cpuNs - before.cpuNs) / (after.atNs - before.atNs)).toBeLessThan(0.8);
    await expectWorking();
  });

  it('a stdout flood, from Python and from a subprocess', async () => {
    // Up to 20 s each under gVisor with half a CPU on a busy machine (each pipe write is a trip through its kernel).
    const slow = { timeoutMs: 90_000 };
    const lines = await kernel.run('for i in range(2_000_000):\n    print(i)', slow);
    expect(lines.stdoutBytes).toBeGreaterThan(10_000_000);
    expect(lines.stdout.length).toBeLessThan(70 * 1024);
    const shell = await kernel.run('import os\nos.system("head -c 20000000 /dev/zero | tr \'\\\\0\' y")', slow);
    expect(shell.stdoutBytes).toBe(20_000_000);
    expect(shell.stdout.length).toBeLessThan(70 * 1024);
    await expectWorking();
  }, 240_000);

  it('one huge line', async () => {
    const execution = await kernel.run('print("z" * 100_000_000)');
    expect(execution.stdoutBytes).toBe(100_000_001);
    expect(execution.stdout.length).toBeLessThan(70 * 1024);
    await expectWorking();
  });

  it('binary garbage on stdout, and replies forged with guessed ids', async () => {
    const garbage = await kernel.run(
      'import os, sys\nsys.stdout.buffer.write(os.urandom(200_000))\nos.write(1, os.urandom(200_000))\nsys.stderr.buffer.write(b"\\xff\\xfe\\x00")',
    );
    expect(garbage.error).toBeUndefined();
    expect(garbage.stdoutBytes).toBe(400_000);
    // Ids are 16 random bytes, used once: guessed ones (the old counter's r1, r2, ..., or none) answer nothing.
    const forged = await kernel.run(`
import json, os
for guess in [f"r{n}" for n in range(1, 300)] + [None, "0" * 32]:
    reply = {"v": 2, "type": "result", "id": guess, "result": {"type": "str", "text": "'forged'"}}
    forgery = os.urandom(100) + b"\\n" + json.dumps(reply, separators=(",", ":")).encode() + b"\\n"
    for fd in range(3, 16):
        try:
            os.write(fd, forgery)
        except OSError:
            pass
"genuine"`);
    expect(forged.error).toBeUndefined();
    expect(forged.result?.text).toBe("'genuine'");
    await expectWorking();
  });

  it('a reply forged with the pending id read from the driver’s memory', async () => {
    // Known limit: user code runs inside the driver's process, so it can read the pending request's
    // id (here from the driver's frames; in general from memory) and answer in the driver's name.
    // The host cannot tell that answer from the driver's. What is contained: it answers only for the
    // cell that forged it, the host stays up, a malformed forgery is an error of that cell, and the
    // next cell gets its own true result, not the forging cell's late real one.
    const forge = (reply: string, after: string) => `
import json, os, re, sys
frame, pending, out = sys._getframe(1), None, None
while frame is not None:
    for name, value in frame.f_locals.items():
        if name == "channel":
            out = value.outgoing
        elif isinstance(value, str) and re.fullmatch("[0-9a-f]{32}", value):
            pending = value
    frame = frame.f_back
forged = dict(v=2, type="result", id=pending, **${reply})
os.write(out, b"\\n" + json.dumps(forged, separators=(",", ":")).encode() + b"\\n")
${after}`;
    const plausible = await kernel.run(
      forge(
        'dict(stdout="all checks passed\\n", result=dict(type="bool", text="True"))',
        'import time\ntime.sleep(2)\nraise RuntimeError("the real outcome")',
      ),
    );
    expect(plausible).toMatchObject({ stdout: 'all checks passed\n', result: { type: 'bool', text: 'True' } });
    const next = await kernel.run('"next cell"');
    expect(next.error).toBeUndefined();
    expect(next.result?.text).toBe("'next cell'");
    const malformed = await kernel.run(forge('dict(figures=[{}])', 'import time\ntime.sleep(1)'));
    expect(malformed.error?.name).toBe('KernelProtocolError');
    expect(malformed.figures).toEqual([]);
    await expectWorking();
  });

  it('a flood of garbage lines on the reply channel, dropped as it arrives', async () => {
    // Lines that do not start like a reply are dropped at their first bytes: the host holds a
    // sample of each, not the line (3 x 100 MB took Node from ~100 MB to over 1 GB before).
    const before = process.memoryUsage().rss;
    let peak = before;
    const watch = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 5);
    try {
      const flood = await kernel.run(`
import os, sys
frame = sys._getframe(1)
while "channel" not in frame.f_locals:
    frame = frame.f_back
out = frame.f_locals["channel"].outgoing
block = b"\\x01" * (1 << 20)
for _ in range(3):
    for _ in range(100):
        os.write(out, block)
    os.write(out, b"\\n")
"flooded"`);
      expect(flood.result?.text).toBe("'flooded'");
    } finally {
      clearInterval(watch);
    }
    expect(peak - before).toBeLessThan(100 * 1024 * 1024);
    await expectWorking();
  });

  it('closing stdout, stderr and stdin from user code', async () => {
    const execution = await kernel.run('import os, sys\nsys.stdout.close()\nos.close(0)\nos.close(1)\nos.close(2)');
    expect(execution.error).toBeUndefined();
    expect((await kernel.run('print("printing again")')).stdout).toBe('printing again\n');
    await expectWorking();
  });

  it('setuid and other privilege escalation', async () => {
    const verdict = await probe(
      `
import os, subprocess
verdict = {"uid": os.getuid(), "euid": os.geteuid()}
for name, attempt in (("setuid", lambda: os.setuid(0)), ("setgid", lambda: os.setgid(0)), ("chroot", lambda: os.chroot("/tmp"))):
    try:
        attempt()
        verdict[name] = "succeeded"
    except OSError as error:
        verdict[name] = type(error).__name__
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
import ctypes
verdict["NoNewPrivs"] = str(ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))  # PR_GET_NO_NEW_PRIVS (gVisor's status omits it)
verdict["CapEff"] = status["CapEff"].strip()
verdict["CapBnd"] = status["CapBnd"].strip()
suid = sorted(subprocess.run("find / -xdev -perm /6000 -type f 2>/dev/null", shell=True, capture_output=True, text=True).stdout.split())
verdict["setuid_binaries"] = suid
verdict["as_root"] = [subprocess.run([path, "-c", "id -u"], capture_output=True, text=True, input="").stdout.strip() for path in suid if path.endswith("/su")]
# Root of a new user namespace (refused under runc; gVisor's own namespace under runsc) writes nothing root owns.
verdict["unshare_write"] = subprocess.run(["unshare", "-r", "sh", "-c", "echo x >> /etc/passwd"], capture_output=True).returncode`,
      120_000,
    );
    expect(verdict).toMatchObject({ uid: 10001, euid: 10001, setuid: 'PermissionError', setgid: 'PermissionError' });
    expect(verdict.chroot).toBe('PermissionError');
    expect(verdict.NoNewPrivs).toBe('1');
    expect(verdict.CapEff).toBe('0000000000000000');
    expect(verdict.CapBnd).toBe('0000000000000000');
    // Debian's own setuid programs (util-linux, login, passwd): no-new-privileges (NoNewPrivs above)
    // keeps them from raising privileges, and the list fails on any program the image adds.
    expect(verdict.setuid_binaries).toEqual([]);
    expect(verdict.as_root).not.toContain('0');
    expect(verdict.unshare_write).not.toBe(0);
    await expectWorking();
  }, 180_000); // walking the image's files for setuid bits takes 20-40 s under gVisor

  it('reaching the Docker socket', async () => {
    const verdict = await probe(`
import os, glob, socket
candidates = ["/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock"] + [path for root in ("/var", "/run", "/tmp", "/workspace") for path in glob.glob(root + "/**/*.sock", recursive=True)]
verdict = {"present": [path for path in candidates if os.path.exists(path)]}
try:
    s = socket.socket(socket.AF_UNIX); s.connect("/var/run/docker.sock"); verdict["connected"] = True
except OSError:
    verdict["connected"] = False`);
    expect(verdict).toEqual({ present: [], connected: false });
    await expectWorking();
  });

  it('escaping through /proc and /sys', async () => {
    const verdict = await probe(`
import errno, os
verdict = {}
def attempt(name, action):
    try:
        action()
        verdict[name] = "succeeded"
    except OSError as error:
        verdict[name] = type(error).__name__
attempt("sysrq", lambda: open("/proc/sysrq-trigger", "w").write("h"))
attempt("core_pattern", lambda: open("/proc/sys/kernel/core_pattern", "w").write("|/tmp/x"))
attempt("kcore", lambda: open("/proc/kcore", "rb").read(16))
# The cgroup files that would lift the limits or move this process out, for the hierarchy the host has.
if os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
    verdict["cgroup_version"] = 2
    cgroup_files = ["/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/pids.max"]
else:
    verdict["cgroup_version"] = 1
    cgroup_files = ["/sys/fs/cgroup/memory/cgroup.procs", "/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/pids/pids.max"]
verdict["cgroup"] = {}
for path in cgroup_files:
    if not os.path.exists(path):
        verdict["cgroup"][path] = "missing"
        continue
    try:
        with open(path, "w") as handle:
            handle.write(str(os.getpid()) if path.endswith("cgroup.procs") else "max" if path.endswith(".max") else "-1")
        verdict["cgroup"][path] = "succeeded"
    except OSError as error:
        verdict["cgroup"][path] = errno.errorcode.get(error.errno, str(error.errno))
attempt("host_root", lambda: os.listdir("/proc/1/root/root"))
try:
    verdict["init_root_hostname"] = open("/proc/1/root/etc/hostname").read().strip()
except OSError as error:
    verdict["init_root_hostname"] = type(error).__name__
verdict["pids_visible"] = len([p for p in os.listdir("/proc") if p.isdigit()])
verdict["mount_proc"] = os.system("mount -t proc proc /tmp 2>/dev/null") != 0`);
    expect(verdict.sysrq).not.toBe('succeeded');
    expect(verdict.core_pattern).not.toBe('succeeded');
    expect(verdict.kcore).not.toBe('succeeded');
    // Each of the hierarchy's files is refused for want of rights (runc) or not there at all (gVisor).
    const cgroup = verdict.cgroup as Record<string, string>;
    expect(Object.keys(cgroup)).toHaveLength(3);
    for (const [path, outcome] of Object.entries(cgroup)) {
      expect(cgroupOutcomes, `${path} (cgroup v${verdict.cgroup_version})`).toContain(outcome);
    }
    expect(verdict.host_root).not.toBe('succeeded');
    // Init's root is the sandbox's own (runc), or not reachable at all (gVisor).
    expect(['sandbox', 'PermissionError']).toContain(verdict.init_root_hostname);
    expect(verdict.pids_visible).toBeLessThan(10); // its own pid namespace: init, the driver, the shell
    expect(verdict.mount_proc).toBe(true);
    await expectWorking();
  });

  // Last, on a kernel of their own: a restart replays every earlier cell, and the floods above would make
  // each take most of a minute under gVisor.
  describe('and restarts after', () => {
    beforeAll(async () => {
      kernel = await fixture.sandbox.acquire('restarts');
      await kernel.run('canary = "alive"');
    });

    it('closing the protocol channel itself', async () => {
      const execution = await kernel.run(
        'import os\nfor fd in range(3, 1024):\n    try:\n        os.close(fd)\n    except OSError:\n        pass',
      );
      expect(execution.error?.name).toBe('KernelDied');
      expect(execution.restarted?.failedReplays).toBe(0);
      await expectWorking();
    });

    it('killing the driver from user code', async () => {
      const execution = await kernel.run('import os, signal\nos.kill(os.getpid(), signal.SIGKILL)');
      expect(execution.error?.name).toBe('KernelDied');
      expect(execution.error?.value).toContain('killed');
      expect(execution.restarted).toMatchObject({ exitCode: 137, oomLikely: false });
      await expectWorking();
    });

    it('os._exit and killing init', async () => {
      const exit = await kernel.run('import os\nos._exit(7)');
      expect(exit.restarted?.exitCode).toBe(7);
      await expectWorking();
      // runc: the pid namespace's init only gets signals it handles, so SIGKILL from inside is dropped.
      // gVisor: it ends the sandbox, and the kernel comes back with its variables (expectWorking).
      const init = await kernel.run(
        'import os, signal, time\nos.kill(1, signal.SIGKILL)\ntime.sleep(1)\nos.kill(1, 0)\n"init survived"',
      );
      expect(init.error?.name ?? init.result?.text).toBe(killingInit);
      await expectWorking();
    });
  });
});
