#!/usr/bin/env bash
# Idempotent set-up used by both README commands: Node packages, a Docker engine, the sandbox image.
# Each step does nothing when its work is already done, and says what is missing when it cannot.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null 2>&1 || ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then
  say "Node.js 20 or newer is needed (found: $(node --version 2>/dev/null || echo none)). Install it from https://nodejs.org or your package manager."
  exit 1
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing npm packages"
  # Not 'npm ci': npm leaves other platforms' optional packages out of the lock file and 'npm ci'
  # then refuses it (npm/cli#8320). 'npm install' keeps the locked versions.
  npm install --no-audit --no-fund --loglevel=error
fi

bash scripts/ensure-docker.sh
bash scripts/ensure-runsc.sh
npx --no-install tsx sandbox/image/build-image.ts
# The tests also need a MySQL/MariaDB server, a PostgreSQL server, Redis, Chromium (to render the eval
# report), promtool (to check the alert rules), Compose and the tally image (to run the deployment
# stack) and systemd-analyze (to check the service unit); the demo runs on embedded SQLite files.
if [ "${1:-}" = "--for-tests" ]; then
  npx --no-install tsx deploy/build-image.ts
  bash scripts/ensure-compose.sh >/dev/null
  bash scripts/ensure-systemd-analyze.sh >/dev/null
  bash scripts/ensure-mariadb.sh >/dev/null
  bash scripts/ensure-postgres.sh >/dev/null
  bash scripts/ensure-redis.sh >/dev/null
  bash scripts/ensure-chromium.sh >/dev/null
  bash scripts/ensure-promtool.sh >/dev/null
fi
