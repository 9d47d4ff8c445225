#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers for the tests and prints an admin URL for it on stdout.
# Uses TALLY_TEST_POSTGRES_URL when set; else the URL kept in .tally/test-postgres-url; else postgres
# without a password on 127.0.0.1:5432 (trust auth); else, on Debian/Ubuntu as root, installs and
# starts Debian's PostgreSQL and creates a 'tally_test' superuser whose URL is kept in
# .tally/test-postgres-url. Elsewhere it says what to do and fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"
cd "$(dirname "$0")/.."

saved=.tally/test-postgres-url
default=postgres://postgres@127.0.0.1:5432/postgres

answers() { node -e '
  const { Client } = require("pg");
  const client = new Client({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 });
  client.connect().then(() => client.query("SELECT 1")).then(() => client.end())
    .then(() => process.exit(0), () => process.exit(1));' "$1"; }

if [ -n "${TALLY_TEST_POSTGRES_URL:-}" ]; then
  if answers "$TALLY_TEST_POSTGRES_URL"; then echo "$TALLY_TEST_POSTGRES_URL"; exit 0; fi
  say "TALLY_TEST_POSTGRES_URL does not answer; start that server or unset the variable"; exit 1
fi
if [ -s "$saved" ]; then
  if answers "$(cat "$saved")"; then cat "$saved"; exit 0; fi
  # A stale file would win over a working default in bench/postgres-admin.ts: drop it.
  say "the URL in $saved does not answer; forgetting it"
  rm -f "$saved"
fi
if answers "$default"; then echo "$default"; exit 0; fi
if ! can_apt_install; then
  say "no PostgreSQL server answers at 127.0.0.1:5432. Start one and set TALLY_TEST_POSTGRES_URL=postgres://user:password@host:port/postgres"
  say "(a superuser: the tests create databases and roles), then run this command again."
  exit 1
fi
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  say "installing Debian's postgresql"
  apt_install postgresql
fi
# The package creates a 'main' cluster of its version (postgresql-common's createcluster.conf) but
# may not start it: without systemd, and with a policy-rc.d that forbids starting services (Docker
# images ship one), nothing does. pg_ctlcluster starts a cluster directly when systemd is not running.
if [ -z "$(pg_lsclusters -h)" ]; then
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  say "creating PostgreSQL $version cluster 'main'"
  pg_createcluster "$version" main >/dev/null
fi
pg_lsclusters -h | while read -r version cluster _port status _rest; do
  case "$status" in
    online*) ;;
    *) say "starting PostgreSQL $version/$cluster in the background"; pg_ctlcluster "$version" "$cluster" start ;;
  esac
done
port=$(pg_lsclusters -h | awk '$4 ~ /^online/ { print $3; exit }')
[ -n "$port" ] || { say "PostgreSQL is installed but no cluster runs; see /var/log/postgresql/"; exit 1; }
mkdir -p .tally && umask 077
if answers "postgres://postgres@127.0.0.1:$port/postgres"; then
  echo "postgres://postgres@127.0.0.1:$port/postgres" > "$saved"; cat "$saved"; exit 0
fi
# Debian's postgres logs in through the unix socket only (peer), and TCP wants a password
# (scram-sha-256): make a test admin with one. psql reads the password as a variable, so no quoting.
password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
(cd / && runuser -u postgres -- psql -q -X -p "$port" -v ON_ERROR_STOP=1 -v password="$password") >/dev/null <<'SQL'
SELECT 'CREATE ROLE tally_test' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'tally_test') \gexec
ALTER ROLE tally_test WITH LOGIN SUPERUSER PASSWORD :'password';
SQL
echo "postgres://tally_test:$password@127.0.0.1:$port/postgres" > "$saved"
answers "$(cat "$saved")" || { say "PostgreSQL runs but tally_test cannot log in over TCP (see pg_hba.conf)"; exit 1; }
cat "$saved"
