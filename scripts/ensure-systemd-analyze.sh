#!/usr/bin/env bash
# Makes sure systemd-analyze (systemd's checker of unit files: `verify`, and `security` for a unit's
# exposure) is installed, and prints its path on stdout. Uses TALLY_TEST_SYSTEMD_ANALYZE when set,
# else `systemd-analyze` on PATH; when it is not there, on Debian/Ubuntu as root, installs Debian's
# systemd package (which ships it; systemd need not be the running init). Elsewhere it says what to
# do and fails.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/setup-lib.sh"

if [ -n "${TALLY_TEST_SYSTEMD_ANALYZE:-}" ]; then
  [ -x "$TALLY_TEST_SYSTEMD_ANALYZE" ] && { echo "$TALLY_TEST_SYSTEMD_ANALYZE"; exit 0; }
  say "TALLY_TEST_SYSTEMD_ANALYZE=$TALLY_TEST_SYSTEMD_ANALYZE is not an executable; fix the path or unset the variable"; exit 1
fi

if path=$(command -v systemd-analyze 2>/dev/null); then echo "$path"; exit 0; fi
if ! can_apt_install; then
  say "no systemd-analyze found. Install systemd 252 or newer (e.g. 'sudo apt-get install systemd'), or set"
  say "TALLY_TEST_SYSTEMD_ANALYZE to a systemd-analyze binary, then run this command again."
  exit 1
fi
say "installing Debian's systemd (its systemd-analyze checks deploy/systemd/)"
# Only the tools are wanted: no recommended packages. Installing does not make systemd the init.
apt_install --no-install-recommends systemd
path=$(command -v systemd-analyze 2>/dev/null) || { say "systemd was installed but systemd-analyze is not on PATH"; exit 1; }
echo "$path"
