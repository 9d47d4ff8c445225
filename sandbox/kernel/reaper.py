"""Kills what an interrupted cell left running (a fork bomb, a runaway subprocess).

The driver runs in the sandbox's own pid namespace, so `kill(-1, SIGKILL)` reaches every process
there except init (pid 1) and the driver itself, in one call. The kernel walks its task list under
a lock that fork also takes, and a fork whose parent has a fatal signal pending is abandoned, so a
fork bomb cannot outrun it the way it outruns a sweep that lists /proc and kills pid by pid (such a
sweep once gave up with dozens of bombers still forking). The call is repeated until a look finds
nothing alive but init and the driver (or a short deadline passes: a process stuck in the kernel
dies when it leaves it)."""

import os
import signal
import time

DEADLINE_S = 3.0


def _others_alive():
    me = os.getpid()
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) not in (1, me) and _state(name) not in (None, "Z"):
            pids.append(int(name))
    return pids


def _state(pid):
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None  # gone already


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
    """Kills every process but init and the driver; returns how many were alive to kill."""
    killed = set()
    deadline = time.monotonic() + DEADLINE_S
    while True:
        alive = _others_alive()
        if not alive:
            return len(killed)
        killed.update(alive)
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            pass  # nobody left to signal
        _collect_zombies(0.05)
        if time.monotonic() > deadline:
            return len(killed)
