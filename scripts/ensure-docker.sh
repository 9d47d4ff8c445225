#!/usr/bin/env bash
# Makes sure a Docker engine answers. On Debian/Ubuntu as root it installs Debian's docker.io and
# starts dockerd in the background when none is running; elsewhere it says what to do and fails.
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"

engine_answers() { timeout 10 docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }

if [ -z "${DOCKER_HOST:-}" ] && command -v docker >/dev/null 2>&1 && engine_answers; then exit 0; fi
if [ -n "${DOCKER_HOST:-}" ]; then
  engine_answers && exit 0
  say "DOCKER_HOST=$DOCKER_HOST does not answer. Start that engine or unset DOCKER_HOST."; exit 1
fi

is_root() { [ "$(id -u)" = 0 ]; }

if ! command -v dockerd >/dev/null 2>&1; then
  if can_apt_install; then
    say "installing Debian's docker.io (no Docker engine found)"
    apt_install docker.io
  else
    say "no Docker engine found. Install Docker (https://docs.docker.com/engine/install/) and start it,"
    say "or point DOCKER_HOST at a running engine, then run this command again."
    exit 1
  fi
fi

if ! engine_answers; then
  if ! is_root; then
    say "dockerd is installed but not running, and starting it needs root. Start it (e.g. 'sudo systemctl start docker')"
    say "or add your user to the 'docker' group, then run this command again."
    exit 1
  fi
  say "starting dockerd in the background (log: /var/log/tally-dockerd.log)"
  # Debian's package may also ship the client as /usr/bin/docker; any client on PATH will do.
  nohup dockerd >/var/log/tally-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do engine_answers && break; sleep 1; done
fi

if ! engine_answers; then
  say "dockerd did not answer within 60 s; see /var/log/tally-dockerd.log"; exit 1
fi
say "Docker engine $(docker version --format '{{.Server.Version}}') is ready"
