"""Stops and kills what an interrupted cell left running (a fork bomb, a runaway subprocess).

Every process in the sandbox's pid namespace except init (pid 1) and the driver is first frozen
with SIGSTOP, so nothing can fork while the sweep runs, then killed. A fork still inside the kernel
when its parent was frozen can finish after the sweep looked, so the sweep repeats until a look
finds nothing alive but init and the driver (or a short deadline passes)."""

import os
import signal
import time

MAX_SWEEPS = 50
DEADLINE_S = 3.0


def _others(live_only=False):
    me = os.getpid()
    pids = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me):
            continue
        if live_only and _state(name) in (None, "Z"):
            continue
        pids.append(int(name))
    return pids


def _state(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None  # gone already


def _freeze():
    """SIGSTOPs every other process, looking again until a look finds no new one."""
    seen = set()
    for _ in range(MAX_SWEEPS):
        fresh = [pid for pid in _others() if pid not in seen]
        if not fresh:
            break
        for pid in fresh:
            try:
                os.kill(pid, signal.SIGSTOP)
            except OSError:
                pass
            seen.add(pid)
    return seen


def _collect_zombies(seconds):
    # Our own children would linger as zombies holding pid slots; init reaps the rest.
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.01)


def reap_strays():
    killed = set()
    deadline = time.monotonic() + DEADLINE_S
    while True:
        frozen = _freeze()
        for pid in frozen:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        killed |= frozen
        _collect_zombies(0.2)
        if not _others(live_only=True) or time.monotonic() > deadline:
            return len(killed)
