#!/usr/bin/env bash
# Makes gVisor's runsc a runtime of the local Docker engine, so kernels run on gVisor's user-space kernel
# (TALLY_SANDBOX_RUNTIME=auto picks it). On Debian/Ubuntu as root: installs Debian's runsc, adds it to
# /etc/docker/daemon.json (merged into what is there, the old file kept as daemon.json.before-tally),
# reloads dockerd (SIGHUP to the pid in its pid file) and checks `docker info` lists it. Elsewhere it says
# what to do and carries on: tally then runs kernels under runc and says so once at start-up.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"

DAEMON_JSON=${TALLY_DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}
listed() { docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; }

if listed; then exit 0; fi
if [ -n "${DOCKER_HOST:-}" ]; then
  say "the engine at DOCKER_HOST has no runsc runtime: register gVisor there (README: Isolation); kernels run under runc"
  exit 0
fi
if ! command -v runsc >/dev/null 2>&1; then
  if can_apt_install; then
    say "installing Debian's runsc (gVisor) for the sandbox"
    apt_install runsc || { say "could not install runsc; kernels run under runc (README: Isolation)"; exit 0; }
  else
    say "gVisor's runsc is not installed: kernels run under runc, on the host's kernel. See README: Isolation."
    exit 0
  fi
fi
if [ "$(id -u)" != 0 ] || [ ! -w "$(dirname "$DAEMON_JSON")" ]; then
  say "runsc is installed but not registered with dockerd, which needs root: add it to $DAEMON_JSON (README: Isolation)"
  exit 0
fi

# --network=none: the containers have no network anyway, and runsc refuses to start them in the host's
# network namespace without it ("cannot run with network enabled in root network namespace").
# Not --oci-seccomp: with Debian's gVisor (20221219) Docker's default profile then refuses clone3 with EPERM
# instead of ENOSYS inside the sandbox, and no thread can start; gVisor's own kernel is filtered on the host.
say "registering runsc with dockerd in $DAEMON_JSON"
[ -f "$DAEMON_JSON" ] && [ ! -f "$DAEMON_JSON.before-tally" ] && cp -p "$DAEMON_JSON" "$DAEMON_JSON.before-tally"
node -e '
  const fs = require("node:fs");
  const [file, path] = process.argv.slice(1);
  const config = fs.existsSync(file) && fs.readFileSync(file, "utf8").trim() ? JSON.parse(fs.readFileSync(file, "utf8")) : {};
  config.runtimes = { ...(config.runtimes ?? {}), runsc: { path, runtimeArgs: ["--network=none"] } };
  fs.writeFileSync(file + ".tmp", JSON.stringify(config, null, 2) + "\n");
  fs.renameSync(file + ".tmp", file);
' "$DAEMON_JSON" "$(command -v runsc)"

pid_file=/var/run/docker.pid
if [ -r "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null; then
  kill -HUP "$(cat "$pid_file")"
  for _ in $(seq 1 20); do listed && break; sleep 0.5; done
fi
if listed; then
  say "dockerd lists runsc: kernels run under gVisor"
else
  say "dockerd does not list runsc after a reload (see its log); kernels run under runc until it does"
fi
