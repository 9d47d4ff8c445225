#!/usr/bin/env bash
# Makes sure a Compose command is installed, for the test of the deployment stack (deploy/compose.yaml),
# and prints it on stdout: TALLY_TEST_COMPOSE when set (e.g. "docker compose"), else `docker compose`
# when the plugin answers, else `docker-compose`; when neither is there, on Debian/Ubuntu as root,
# installs Debian's docker-compose package. Elsewhere it says what to do and fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"

if [ -n "${TALLY_TEST_COMPOSE:-}" ]; then
  # shellcheck disable=SC2086 # the value is a command with its arguments
  $TALLY_TEST_COMPOSE version >/dev/null 2>&1 && { echo "$TALLY_TEST_COMPOSE"; exit 0; }
  say "TALLY_TEST_COMPOSE='$TALLY_TEST_COMPOSE' does not run; fix it or unset the variable"; exit 1
fi

if docker compose version >/dev/null 2>&1; then echo "docker compose"; exit 0; fi
if command -v docker-compose >/dev/null 2>&1; then echo "docker-compose"; exit 0; fi
if ! can_apt_install; then
  say "no Compose found. Install the Docker Compose plugin ('docker compose') or docker-compose"
  say "(e.g. 'sudo apt-get install docker-compose'), or set TALLY_TEST_COMPOSE, then run this again."
  exit 1
fi
say "installing Debian's docker-compose (the test of deploy/compose.yaml runs it)"
apt_install --no-install-recommends docker-compose
command -v docker-compose >/dev/null 2>&1 || { say "docker-compose was installed but is not on PATH"; exit 1; }
echo "docker-compose"
