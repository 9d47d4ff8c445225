#!/bin/sh
# Starts MariaDB for the compose stack: on the first start it makes the data directory and lets
# root in from the network with MARIADB_ROOT_PASSWORD (root on the socket stays passwordless, for
# the health check); then it runs the server in the foreground.
set -eu
datadir=/var/lib/mysql
if [ ! -d "$datadir/mysql" ]; then
  : "${MARIADB_ROOT_PASSWORD:?set MARIADB_ROOT_PASSWORD in the env file}"
  mariadb-install-db --user=mysql --datadir="$datadir" --skip-test-db >/dev/null
  mariadbd --user=mysql --datadir="$datadir" --skip-networking &
  until mariadb-admin ping --silent 2>/dev/null; do sleep 0.5; done
  # The password goes through the client's stdin, never its command line.
  printf "CREATE USER 'root'@'%%' IDENTIFIED BY '%s'; GRANT ALL ON *.* TO 'root'@'%%' WITH GRANT OPTION;\n" \
    "$(printf '%s' "$MARIADB_ROOT_PASSWORD" | sed "s/'/''/g")" | mariadb
  mariadb-admin shutdown
  wait
fi
exec mariadbd --user=mysql --datadir="$datadir" --bind-address=0.0.0.0
