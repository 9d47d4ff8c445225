#!/usr/bin/env bash
# Makes sure a MySQL/MariaDB server answers for the tests and prints an admin URL for it on stdout.
# Uses TALLY_TEST_MYSQL_URL when set; else root without a password on 127.0.0.1:3306; else, on
# Debian/Ubuntu as root, installs and starts MariaDB and creates a 'tally_test' admin user whose URL
# is kept in .tally/test-mysql-url. Elsewhere it says what to do and fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"
cd "$(dirname "$0")/.."

saved=.tally/test-mysql-url
url=${TALLY_TEST_MYSQL_URL:-}
[ -z "$url" ] && [ -s "$saved" ] && url=$(cat "$saved")
url=${url:-mysql://root@127.0.0.1:3306}

answers() { node -e '
  const mysql = require("mysql2/promise");
  mysql.createConnection({ uri: process.argv[1], connectTimeout: 3000 })
    .then((c) => c.query("SELECT 1").then(() => c.end()))
    .then(() => process.exit(0), () => process.exit(1));' "$1"; }

if answers "$url"; then echo "$url"; exit 0; fi
if [ -n "${TALLY_TEST_MYSQL_URL:-}" ]; then
  say "TALLY_TEST_MYSQL_URL does not answer; start that server or unset the variable"; exit 1
fi
if ! can_apt_install; then
  say "no MySQL/MariaDB server answers at 127.0.0.1:3306. Start one and set TALLY_TEST_MYSQL_URL=mysql://user:password@host:port"
  say "(the user needs to create databases and users), then run this command again."
  exit 1
fi
if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
  say "installing Debian's mariadb-server"
  apt_install mariadb-server
fi
if ! mariadb-admin ping --silent >/dev/null 2>&1; then
  say "starting MariaDB in the background"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd
  for _ in $(seq 1 30); do mariadb-admin ping --silent >/dev/null 2>&1 && break; sleep 1; done
fi
if answers mysql://root@127.0.0.1:3306; then echo mysql://root@127.0.0.1:3306; exit 0; fi
# Debian's root logs in through the unix socket only: make a test admin reachable over TCP.
password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
mariadb -e "CREATE USER IF NOT EXISTS 'tally_test'@'127.0.0.1' IDENTIFIED BY '$password';
  ALTER USER 'tally_test'@'127.0.0.1' IDENTIFIED BY '$password';
  GRANT ALL PRIVILEGES ON *.* TO 'tally_test'@'127.0.0.1' WITH GRANT OPTION;"
mkdir -p .tally && umask 077 && echo "mysql://tally_test:$password@127.0.0.1:3306" > "$saved"
answers "$(cat "$saved")" || { say "MariaDB runs but tally_test cannot log in over TCP"; exit 1; }
cat "$saved"
