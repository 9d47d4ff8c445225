#!/usr/bin/env bash
# Makes sure promtool (Prometheus's checker of configs and alert rules, and runner of rule unit tests)
# is installed, and prints its path on stdout. Uses TALLY_TEST_PROMTOOL when set, else `promtool` on
# PATH; when it is not there, on Debian/Ubuntu as root, installs Debian's prometheus package (which
# ships promtool). Elsewhere it says what to do and fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"

if [ -n "${TALLY_TEST_PROMTOOL:-}" ]; then
  [ -x "$TALLY_TEST_PROMTOOL" ] && { echo "$TALLY_TEST_PROMTOOL"; exit 0; }
  say "TALLY_TEST_PROMTOOL=$TALLY_TEST_PROMTOOL is not an executable; fix the path or unset the variable"; exit 1
fi

if path=$(command -v promtool 2>/dev/null); then echo "$path"; exit 0; fi
if ! can_apt_install; then
  say "no promtool found. Install Prometheus (e.g. 'sudo apt-get install prometheus', or unpack a release"
  say "from https://prometheus.io/download/ and put promtool on PATH) or set TALLY_TEST_PROMTOOL to a"
  say "promtool binary, then run this command again."
  exit 1
fi
say "installing Debian's prometheus (its promtool checks deploy/prometheus/)"
# Only promtool is wanted: no node exporter or other recommended packages.
apt_install --no-install-recommends prometheus
path=$(command -v promtool 2>/dev/null) || { say "prometheus was installed but promtool is not on PATH"; exit 1; }
echo "$path"
