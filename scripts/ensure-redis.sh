#!/usr/bin/env bash
# Makes sure a Redis server answers for the tests and prints its URL on stdout. Uses
# TALLY_TEST_REDIS_URL when set, else redis://127.0.0.1:6379; when nothing answers there, on
# Debian/Ubuntu as root, installs Debian's redis-server and starts it in the background (no
# persistence: test data only). Elsewhere it says what to do and fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"
cd "$(dirname "$0")/.."

default_url=redis://127.0.0.1:6379
url=${TALLY_TEST_REDIS_URL:-$default_url}

answers() { node -e '
  const { createClient } = require("@redis/client");
  const client = createClient({ url: process.argv[1], socket: { connectTimeout: 3000, reconnectStrategy: false } });
  client.on("error", () => {});
  client.connect()
    .then(() => client.ping())
    .then(() => client.destroy())
    .then(() => process.exit(0), () => process.exit(1));' "$1"; }

if answers "$url"; then echo "$url"; exit 0; fi
if [ -n "${TALLY_TEST_REDIS_URL:-}" ]; then
  say "TALLY_TEST_REDIS_URL does not answer; start that server or unset the variable"; exit 1
fi
if ! can_apt_install; then
  say "no Redis server answers at $default_url. Start one (e.g. 'redis-server --daemonize yes') or set"
  say "TALLY_TEST_REDIS_URL=redis://host:port to a Redis the tests may write to, then run this command again."
  exit 1
fi
if ! command -v redis-server >/dev/null 2>&1; then
  say "installing Debian's redis-server"
  apt_install redis-server
fi
say "starting redis-server in the background on 127.0.0.1:6379"
redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
for _ in $(seq 1 30); do answers "$default_url" && break; sleep 0.2; done
answers "$default_url" || { say "redis-server was started but does not answer at $default_url"; exit 1; }
echo "$default_url"
